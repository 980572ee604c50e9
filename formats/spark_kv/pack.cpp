// `pack` for spark-kv stores: the JSON of `dump --json` (schema: json.cpp) back to file bytes.
// Streams from the JSON text to bytes without building a tree, so packing a large dump costs
// about the output's size. The caller checks the result with the reader (every rule of the
// version), so this only has to get the shape and the types right.
#include "codec.hpp"
#include "spec.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/spark_kv.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace sparksave::spark_kv {

namespace {

using json::Kind;
using json::Value;

class Packer {
  public:
    explicit Packer(const json::Reader& r) : r_(r) {}

    Result<Packed> run(const Value& root) {
        static constexpr std::string_view k_names[] = {"format", "version", "records",
                                                       "finalNewline"};
        Value values[4];
        bool present[4] = {};
        if (auto r = r_.dump_members(root, "spark_kv", k_names, values, present); !r)
            return r.error();
        for (std::size_t i : {1, 2})
            if (!present[i])
                return r_.error_at(root, "",
                                   fmt::format("expected a member \"{}\", found none", k_names[i]));
        if (present[0] && (values[0].kind != Kind::string || r_.decoded(values[0]) != "spark_kv"))
            return r_.error_at(values[0], "format", "expected \"spark_kv\"");

        const std::string_view v = r_.raw(values[1]);
        std::uint32_t version = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
        if (values[1].kind != Kind::number || ec != std::errc() || p != v.data() + v.size() ||
            (version != k_version_legacy && version != k_version_v2))
            return r_.error_at(values[1], "version",
                               fmt::format("expected {} (legacy) or {} (v2), found {}",
                                           k_version_legacy, k_version_v2, display(v)));
        version_ = version;

        bool final_newline = true;
        if (present[3]) {
            if (values[3].kind != Kind::boolean)
                return r_.error_at(values[3], "finalNewline", "expected true or false");
            final_newline = r_.is_true(values[3]);
        }

        if (version_ == k_version_v2) {
            out_ += k_marker;
            any_line_ = true;
        }
        if (values[2].kind != Kind::array)
            return r_.error_at(
                values[2], "records",
                "expected an array of {\"key\", \"value\"} records and {\"line\"} lines, found " +
                    std::string(json::kind_name(values[2].kind)));
        std::optional<Error> problem;
        r_.elements(values[2], [&](std::size_t i, const Value& e) {
            std::string path(k_records);
            append_path_index(path, i);
            if (auto r = line(e, path); !r) {
                problem = r.error();
                return false;
            }
            return true;
        });
        if (problem) return *problem;
        if (!final_newline) {
            if (last_empty_)
                return r_.error_at(values[3], "finalNewline",
                                   "expected the last line to end with a line feed: an empty last "
                                   "line without one is no line at all");
        } else if (any_line_) {
            out_ += '\n';
        }
        Packed out;
        out.bytes = std::move(out_);
        out.notes = std::move(notes_);
        return out;
    }

  private:
    // A byte string: a JSON string (UTF-8), or {"base64": "..."} for any bytes.
    Result<void> read_bytes(const Value& v, const std::string& path, std::string& out) const {
        out.clear();
        if (v.kind == Kind::string) {
            r_.decode(v, out);
            return {};
        }
        Value b64;
        if (v.kind == Kind::object && r_.find(v, "base64", b64) && b64.kind == Kind::string) {
            std::string text = r_.decoded(b64);
            if (!base64_decode(text, out))
                return r_.error_at(b64, path,
                                   "expected standard base64 (A-Z a-z 0-9 + / and = padding)");
            return {};
        }
        return r_.error_at(v, path,
                           "expected a string or {\"base64\": \"...\"}, found " +
                               std::string(json::kind_name(v.kind)));
    }

    Result<void> line(const Value& e, const std::string& path) {
        if (e.kind != Kind::object)
            return r_.error_at(e, path,
                               "expected {\"key\", \"value\"} or {\"line\"}, found " +
                                   std::string(json::kind_name(e.kind)));
        // One pass over the members (a store can have millions of records).
        Value key, value, raw, text;
        bool has_key = false, has_value = false, has_raw = false, has_line = false;
        std::optional<Error> problem;
        struct Member {
            std::string_view name;
            Value* value;
            bool* seen;
        };
        const Member members[] = {{"key", &key, &has_key},
                                  {"value", &value, &has_value},
                                  {"raw", &raw, &has_raw},
                                  {"line", &text, &has_line}};
        r_.members(e, [&](std::string_view name, const Value& m) {
            for (const Member& member : members) {
                if (member.name != name) continue;
                if (*member.seen) {
                    problem =
                        r_.error_at(m, path + "." + display(name), "this member appears twice");
                    return false;
                }
                *member.value = m;
                *member.seen = true;
                return true;
            }
            problem = r_.error_at(m, path + "." + display(name),
                                  "unknown member " + display(name, true) +
                                      " (a record has key, value and maybe raw; a line without a "
                                      "TAB has line)");
            return false;
        });
        if (problem) return *problem;
        if (any_line_) out_ += '\n';
        const std::size_t start = out_.size();
        if (has_line) {
            if (has_key || has_value || has_raw)
                return r_.error_at(
                    e, path, "expected either {\"line\"} or {\"key\", \"value\"}, found both");
            if (auto r = read_bytes(text, path + ".line", a_); !r) return r;
            if (a_.find('\t') != std::string::npos || a_.find('\n') != std::string::npos)
                return r_.error_at(text, path + ".line",
                                   "expected a line without a TAB to hold no TAB and no line feed");
            if (!any_line_ && a_ == k_marker)
                return r_.error_at(
                    text, path + ".line",
                    fmt::format("expected a legacy store not to start with the marker "
                                "line \"{}\" (it would read back as v2)",
                                k_marker));
            out_ += a_;
        } else {
            if (!has_key || !has_value)
                return r_.error_at(
                    e, path,
                    fmt::format("expected a member \"{}\", found none", has_key ? "value" : "key"));
            if (auto r = read_bytes(key, path + ".key", a_); !r) return r;
            if (auto r = read_bytes(value, path + ".value", b_); !r) return r;
            bool written = false;
            if (has_raw) {
                if (auto r = read_bytes(raw, path + ".raw", c_); !r) return r;
                if (line_says(c_, a_, b_, version_)) {
                    out_ += c_;
                    written = true;
                } else {
                    notes_.push_back(
                        fmt::format("{}: raw does not read back as key and value, so the "
                                    "line was written from them",
                                    path));
                }
            }
            if (!written) {
                if (version_ != k_version_v2) {
                    if (const std::string_view misfit = legacy_misfit(a_, b_); !misfit.empty())
                        return r_.error_at(
                            e, path,
                            fmt::format("expected a key and value a legacy store can "
                                        "hold (it has no escaping), found {}",
                                        misfit));
                }
                append_line(out_, a_, b_, version_);
            }
        }
        any_line_ = true;
        last_empty_ = out_.size() == start;
        return {};
    }

    const json::Reader& r_;
    std::uint32_t version_ = 0;
    std::string out_;
    std::string a_, b_, c_; // scratch: decoded strings of the current element
    std::vector<std::string> notes_;
    bool any_line_ = false;
    bool last_empty_ = false;
};

} // namespace

Result<Packed> from_json(std::string_view text) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    return Packer(reader).run(*root);
}

} // namespace sparksave::spark_kv
