// libFuzzer target for `pack` (sparksave-pack(1)): JSON from anyone, through the library as the
// command runs it (the format named by the JSON, its from_json, the result checked with the
// format's summarize). No crash; JSON that is not valid is never packed; and whatever pack
// accepts
//  - verifies (summarize and read find no error), and from_json_to makes the same bytes;
//  - dumps back to equal JSON: the dump of the packed file holds every member of the input with
//    the same value (pack refuses JSON that is not a dump, so nothing it accepts may be lost),
//    apart from what the schemas (formats/*/json.cpp, sparksave-pack(1)) call informational or
//    alternative spellings (see Compare below);
//  - is the fixed point of the round trip: pack of that dump gives the same bytes.
// An input that is no dump but a save its reader reads without error is dumped, and pack of that
// dump must give the file back byte for byte; the corpus holds both kinds.
#include "sparksave/format.hpp"
#include "sparksave/json_reader.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace sparksave;
using json::Kind;
using json::Value;

[[noreturn]] void fail(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_pack: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}

// The input dump against the dump of what pack made of it. Equal means: the same members with
// equal values, arrays element by element, and
//  - byte strings compare as the bytes they hold (a JSON string, or {"base64": ...});
//  - members the schemas call informational or optional in pack's input may be missing from
//    the input (the dump then has them: "schemaVersion", which an older dump lacks and pack
//    takes only as at most the version it writes, "format", a checksum, metadata.fields, a GMSV
//    component's "name", its timestamp's "kind" and "time", a text archive's "versionLine", a
//    spark-kv record's "raw"), and their input value need not match (pack recomputes or
//    derives them), except metadata.fields, which pack writes when they were edited;
//  - "complete": true in the input is the dump's default (it has no such member);
//  - tess and GMSV integers may be a JSON number, a decimal string or a "0x" string, and tess's
//    lattice and residency a name or the number, and a tile of a 32-bit float field compares
//    as the float pack rounds it to, a float tile given as its bits ("0x...") as those bits;
//  - a GMSV component's "json" is its data, compared byte for byte, also with the dump's
//    "jsonText" (a string of the data, which the dump writes when the data holds characters it
//    never passes on raw) and the other way round;
//  - when pack notes that metadata.fields won over metadata.raw, raw is the rebuilt block.
class Compare {
  public:
    Compare(const json::Reader& in, const json::Reader& out, const FormatInfo& format,
            bool fields_rebuilt)
        : in_(in), out_(out), format_(format.name), rebuilt_(fields_rebuilt) {}

    // Empty when equal, else the JSON path of the first difference and what differs.
    std::string run(const Value& a, const Value& b) {
        if (format_ == "tess_world") float_widths(b);
        value(a, b, "", 0);
        return problem_;
    }

  private:
    bool numeric_format() const { return format_ == "tess_world" || format_ == "gmsv"; }

    // tess: the width of each float field of the dump's descriptors (0: not a float), so that
    // a tile's number compares as the float pack makes of it: pack rounds a JSON number to the
    // nearest float of the column's width, as a JSON reader rounds one to a double (an input of
    // more digits than a 32-bit float holds dumps as the shortest text of that float).
    void float_widths(const Value& root) {
        out_.members(root, [&](std::string_view k, const Value& fields) {
            if (k != "fields") return true;
            out_.elements(fields, [&](std::size_t, const Value& field) {
                std::size_t width = 0;
                bool is_float = false;
                out_.members(field, [&](std::string_view m, const Value& v) {
                    if (m == "kind") is_float = out_.decoded(v) == "float";
                    if (m == "width")
                        width = static_cast<std::size_t>(
                            std::strtoull(std::string(out_.raw(v)).c_str(), nullptr, 10));
                    return true;
                });
                widths_.push_back(is_float ? width : 0);
                return true;
            });
            return false;
        });
    }
    // A float tile's bits: a "0x" string of them, or a number read as a float of `width` bytes.
    std::optional<std::uint64_t> float_bits(const json::Reader& r, const Value& v,
                                            std::size_t width) const {
        if (v.kind == Kind::string) {
            const std::string t = r.decoded(v);
            if (!t.starts_with("0x")) return std::nullopt;
            const auto bits = integer(t);
            if (!bits) return std::nullopt;
            return bits->magnitude;
        }
        if (v.kind != Kind::number) return std::nullopt;
        const std::string t(r.raw(v));
        if (width == 4) {
            float f = 0;
            std::from_chars(t.data(), t.data() + t.size(), f);
            return std::bit_cast<std::uint32_t>(f);
        }
        double d = 0;
        std::from_chars(t.data(), t.data() + t.size(), d);
        return std::bit_cast<std::uint64_t>(d);
    }
    // The float width of the tile at `path` ("chunks[0].fields[1][5]"), or 0.
    std::size_t float_width(const std::string& path) const {
        if (!path.starts_with("chunks[")) return 0;
        const std::size_t at = path.find("].fields[");
        if (at == std::string::npos) return 0;
        const std::size_t field = std::strtoull(path.c_str() + at + 9, nullptr, 10);
        return field < widths_.size() ? widths_[field] : 0;
    }

    void differ(const std::string& path, std::string what) {
        if (problem_.empty())
            problem_ = (path.empty() ? std::string("(root)") : path) + ": " + what;
    }

    // The bytes of a byte string, or nothing when `v` is not one.
    std::optional<std::string> bytes(const json::Reader& r, const Value& v) const {
        std::string s;
        if (v.kind == Kind::string) {
            r.decode(v, s);
            return s;
        }
        if (v.kind != Kind::object || !r.bytes(v, "", s)) return std::nullopt;
        return s;
    }

    // An integer spelled as a number, a decimal string or "0x" hex (tess, GMSV): its sign and
    // magnitude (every integer of the schemas fits 64 bits).
    struct Integer {
        bool negative = false;
        std::uint64_t magnitude = 0;
        bool operator==(const Integer&) const = default;
    };
    static std::optional<Integer> integer(std::string_view t) {
        Integer v;
        unsigned base = 10;
        if (!t.empty() && t[0] == '-') {
            v.negative = true;
            t.remove_prefix(1);
        }
        if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            base = 16;
            t.remove_prefix(2);
        }
        if (t.empty()) return std::nullopt;
        for (char c : t) {
            const unsigned d = c >= '0' && c <= '9'   ? unsigned(c - '0')
                               : c >= 'a' && c <= 'f' ? unsigned(c - 'a' + 10)
                               : c >= 'A' && c <= 'F' ? unsigned(c - 'A' + 10)
                                                      : 99u;
            if (d >= base || v.magnitude > (UINT64_MAX - d) / base) return std::nullopt;
            v.magnitude = v.magnitude * base + d;
        }
        if (v.magnitude == 0) v.negative = false;
        return v;
    }

    // Whether `v` is an integer as the dump writes one: a number, a name, or a string of a
    // decimal integer without leading zeros or of "0x" hex.
    bool dump_integer(const json::Reader& r, const Value& v) const {
        if (v.kind != Kind::string) return true;
        std::string t = r.decoded(v);
        if (t.starts_with("0x")) return t.size() > 2;
        if (t.starts_with('-')) t.erase(0, 1);
        return !t.empty() && (t == "0" || t[0] != '0');
    }

    std::optional<Integer> integer_of(const json::Reader& r, const Value& v) const {
        if (v.kind == Kind::number) return integer(r.raw(v));
        if (v.kind == Kind::string) return integer(r.decoded(v));
        return std::nullopt;
    }

    // tess's named header values as their numbers.
    std::optional<Integer> named(const json::Reader& r, const Value& v,
                                 std::string_view member) const {
        if (format_ != "tess_world" || v.kind != Kind::string) return std::nullopt;
        const std::string s = r.decoded(v);
        if (member == "lattice" && s == "orthogonal") return Integer{false, 0x4F525448};
        if (member == "lattice" && s == "hex-axial") return Integer{false, 0x48455841};
        if (member == "residency" && s == "dense") return Integer{false, 1};
        if (member == "residency" && s == "sparse") return Integer{false, 2};
        return std::nullopt;
    }

    // Members the input may leave out, or whose input value pack does not take.
    bool informational(const std::string& parent, std::string_view key, int depth) const {
        if (depth == 0 && (key == "schemaVersion" || key == "format" || key == "checksum"))
            return true;
        if (format_ == "gmsv" && depth == 4 && key == "name") return true; // component name
        if (format_ == "gmsv" && parent == "timestamp" && (key == "kind" || key == "time"))
            return true;
        if (format_ == "text_archive" && depth == 0 && key == "versionLine") return true;
        if (format_ == "spark_kv" && depth == 2 && key == "raw") return true;
        if (format_ == "spark_save" && parent == "metadata" && (key == "fields" || key == "raw"))
            return true;
        return false;
    }
    bool recomputed(const std::string& parent, std::string_view key, int depth) const {
        if (depth == 0 && key == "checksum") return true;
        if (format_ == "gmsv" && depth == 4 && key == "name") return true;
        if (format_ == "gmsv" && parent == "timestamp" && (key == "kind" || key == "time"))
            return true;
        if (format_ == "spark_kv" && depth == 2 && key == "raw") return true;
        if (format_ == "spark_save" && parent == "metadata" && key == "raw" && rebuilt_)
            return true;
        return false;
    }

    void object(const Value& a, const Value& b, const std::string& path, int depth) {
        std::map<std::string, Value> outs;
        out_.members(b, [&](std::string_view k, const Value& v) {
            outs.emplace(std::string(k), v);
            return true;
        });
        std::map<std::string, bool> seen;
        in_.members(a, [&](std::string_view k, const Value& v) {
            const std::string key(k);
            const std::string sub = path.empty() ? key : path + "." + key;
            if (seen[key]) {
                differ(sub, "the input gives this member twice, and pack took it");
                return false;
            }
            seen[key] = true;
            if (depth == 0 && key == "complete" && in_.is_true(v)) return true;
            auto o = outs.find(key);
            // A GMSV component's data as "json" (the bytes) or "jsonText" (a string of them):
            // the dump spells it as the data needs (formats/gmsv/json.cpp), pack takes either.
            if (o == outs.end() && format_ == "gmsv" && (key == "json" || key == "jsonText")) {
                const std::string other = key == "json" ? "jsonText" : "json";
                if (auto alt = outs.find(other); alt != outs.end()) {
                    seen[other] = true;
                    const std::string x = key == "json" ? std::string(in_.raw(v)) : in_.decoded(v);
                    const std::string y = other == "json" ? std::string(out_.raw(alt->second))
                                                          : out_.decoded(alt->second);
                    if (x != y) differ(sub, "other component data (as " + other + ")");
                    return problem_.empty();
                }
            }
            if (o == outs.end()) {
                if (!informational(path, key, depth))
                    differ(sub, "in the input, not in the dump of what pack made of it");
                return problem_.empty();
            }
            if (!recomputed(path, key, depth)) value(v, o->second, sub, depth + 1, key);
            return problem_.empty();
        });
        for (const auto& [key, v] : outs)
            if (!seen.count(key) && !informational(path, key, depth))
                differ(path.empty() ? key : path + "." + key,
                       "in the dump of what pack made, not in the input");
    }

    void value(const Value& a, const Value& b, const std::string& path, int depth,
               std::string_view member = {}) {
        if (!problem_.empty()) return;
        // A GMSV component's JSON data is bytes, written and dumped as they are.
        if (format_ == "gmsv" && member == "json") {
            if (in_.raw(a) != out_.raw(b)) differ(path, "other component data");
            return;
        }
        // tess and GMSV integers first: an integer's input spelling is free (`"007"`, `"0x1f"`,
        // `31`), so when the dump spells an integer as the dump does (a hex byte string such as
        // "0102" has a leading zero: it stays bytes), the input compares as an integer.
        if (numeric_format() && dump_integer(out_, b)) {
            auto x = named(in_, a, member);
            if (!x) x = integer_of(in_, a);
            auto y = named(out_, b, member);
            if (!y) y = integer_of(out_, b);
            if (x && y) {
                if (*x != *y) differ(path, "another integer");
                return;
            }
        }
        // Hex digits pack reads in either case, which the dump writes in lower case: a GMSV
        // entity's GUID (RFC 4122 §3) and a byte string given as "hex".
        if (((format_ == "gmsv" && member == "id") || member == "hex") && a.kind == Kind::string &&
            b.kind == Kind::string) {
            std::string x = in_.decoded(a);
            for (char& c : x)
                if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
            if (x != out_.decoded(b)) differ(path, "other hex digits");
            return;
        }
        if (auto x = bytes(in_, a)) {
            if (auto y = bytes(out_, b)) {
                if (*x != *y) differ(path, "other bytes");
                return;
            }
        }
        if (a.kind == Kind::object && b.kind == Kind::object) return object(a, b, path, depth);
        if (a.kind == Kind::array && b.kind == Kind::array) {
            std::vector<Value> xs, ys;
            in_.elements(a, [&](std::size_t, const Value& v) {
                xs.push_back(v);
                return true;
            });
            out_.elements(b, [&](std::size_t, const Value& v) {
                ys.push_back(v);
                return true;
            });
            if (xs.size() != ys.size()) return differ(path, "another number of elements");
            for (std::size_t i = 0; i < xs.size() && problem_.empty(); ++i)
                value(xs[i], ys[i], path + "[" + std::to_string(i) + "]", depth + 1, member);
            return;
        }
        // A tile of a float field given as its IEEE bits ("0xef800000"), which pack takes for
        // any float and the dump writes only for inf and NaN: compared as the bits.
        if (const std::size_t width = float_width(path);
            width && (a.kind == Kind::string) != (b.kind == Kind::string)) {
            if (float_bits(in_, a, width) != float_bits(out_, b, width))
                differ(path, "another float (as its bits)");
            return;
        }
        if (a.kind == Kind::number && b.kind == Kind::number) {
            const std::string sa(in_.raw(a)), sb(out_.raw(b));
            if (sa == sb) return;
            if (float_width(path) == 4) {
                float fa = 0, fb = 0;
                std::from_chars(sa.data(), sa.data() + sa.size(), fa);
                std::from_chars(sb.data(), sb.data() + sb.size(), fb);
                if (std::bit_cast<std::uint32_t>(fa) != std::bit_cast<std::uint32_t>(fb))
                    differ(path, "another 32-bit float: " + sa + " became " + sb);
                return;
            }
            const double da = std::strtod(sa.c_str(), nullptr);
            const double db = std::strtod(sb.c_str(), nullptr);
            if (da != db) differ(path, "another number: " + sa + " became " + sb);
            return;
        }
        if (a.kind != b.kind) return differ(path, "another kind of value");
        if (in_.raw(a) != out_.raw(b)) differ(path, "another value");
    }

    const json::Reader& in_;
    const json::Reader& out_;
    std::string_view format_;
    bool rebuilt_;
    std::string problem_;
    std::vector<std::size_t> widths_; // float_widths()
};

std::string dump(const FormatInfo& format, const std::string& bytes, Findings& findings) {
    Parsed p = format.read(std::make_shared<const Source>(bytes), ReadOptions{});
    findings = p.findings;
    std::string out;
    format_json(format.id).to_json(p.doc, out);
    return out;
}

// A save (not a dump) that its reader reads without error: pack of its unedited dump is the
// file, byte for byte (sparksave-pack(1)).
void round_trip(std::string_view bytes) {
    const FormatInfo* format = detect_format(bytes.substr(0, k_detect_bytes), false);
    if (!format || bytes.size() > format->max_file_size) return;
    Findings findings;
    const std::string json = dump(*format, std::string(bytes), findings);
    if (findings.has_errors()) return;
    auto packed = format_json(format->id).from_json(json);
    if (!packed) fail("pack refuses the unedited dump of a valid file", packed.error().describe());
    if (packed->bytes == bytes) return;
    // A text archive is written in the engine writer's layout (sparksave-pack(1)): one that the
    // reader notes is laid out otherwise (commas, blanks, indentation, line ends, an ignored
    // line) comes back with the same entries, in that layout.
    bool layout = false;
    if (format->id == FormatId::text_archive)
        for (const Error& f : findings.items())
            layout |= f.code == ErrorCode::bad_syntax || f.code == ErrorCode::bad_indent ||
                      f.code == ErrorCode::truncated;
    if (!layout) fail("pack of the unedited dump of a valid file is another file");
    Findings again;
    if (dump(*format, packed->bytes, again) != json || again.has_errors())
        fail("pack of the unedited dump of a valid text archive holds other entries");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The format a dump names, as `sparksave pack` finds it (format.hpp dump_format).
    auto named = dump_format(text);
    if (!named) {
        round_trip(text);
        return 0;
    }
    const FormatInfo* format = *named;
    const FormatJson& json_row = format_json(format->id);
    auto packed = json_row.from_json(text);
    if (json_row.from_json_to) {
        std::string streamed;
        auto to = json_row.from_json_to(text, [&](std::string_view b) -> Result<void> {
            streamed.append(b);
            return {};
        });
        if (to.has_value() != packed.has_value())
            fail("from_json and from_json_to disagree on accepting the input");
        if (packed && (streamed != packed->bytes || to->notes != packed->notes))
            fail("from_json_to made other bytes or notes than from_json");
        if (!packed && to.error().describe() != packed.error().describe())
            fail("from_json and from_json_to refuse with other errors",
                 to.error().describe() + " / " + packed.error().describe());
    }
    if (!packed) return 0;
    json::Reader in(text);
    auto in_root = in.validate();
    if (!in_root) fail("pack took JSON that is not valid", in_root.error().describe());
    // pack (app/cmd_pack.cpp) refuses a result that breaks its format's rules: not accepted.
    const Summary check = format->summarize(packed->bytes);
    if (check.findings.has_errors()) return 0;

    Findings findings;
    const std::string json_out = dump(*format, packed->bytes, findings);
    if (findings.has_errors()) fail("the read finds an error that summarize does not");
    json::Reader out(json_out);
    auto out_root = out.validate();
    if (!out_root) fail("the dump is not valid JSON", out_root.error().describe());
    bool rebuilt = false;
    for (const auto& note : packed->notes) rebuilt |= note.find("rebuilt") != std::string::npos;
    Compare compare(in, out, *format, rebuilt);
    if (std::string problem = compare.run(*in_root, *out_root); !problem.empty())
        fail("the dump of what pack made differs from its input", problem);

    auto again = json_row.from_json(json_out);
    if (!again) fail("pack refuses the dump of what it made", again.error().describe());
    if (again->bytes != packed->bytes) fail("pack of the dump of what pack made gives other bytes");
    return 0;
}
