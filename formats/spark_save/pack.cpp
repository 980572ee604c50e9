// `pack` for `.spark_save`: the JSON of `dump --json` (schema: json.cpp) back to file bytes.
// Streams from the JSON text to bytes without building a tree, so packing a large dump costs
// about the output's size. The caller checks the result with the reader (every rule of the
// version), so this only has to get the shape and the types right.
#include "reader.hpp"
#include "tree.hpp"

#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/spark_save.hpp"

#include <array>
#include <charconv>
#include <fmt/format.h>
#include <functional>

namespace sparksave::spark_save {

namespace {

using json::Kind;
using json::Value;

// Where a value is in the JSON, as a chain of steps on the stack: the path text (node-path
// syntax) is built only when an error needs it, not for each of millions of values.
struct Where {
    const Where* parent = nullptr;
    std::string_view name; // a member name, or empty for an index step
    std::size_t index = 0;
    bool verbatim = false; // `name` is already a path (the root of a chain)
    std::string str() const {
        std::string p = parent ? parent->str() : std::string();
        if (verbatim)
            p += name;
        else if (name.empty())
            append_path_index(p, index);
        else
            append_path_name(p, name);
        return p;
    }
    Where member(std::string_view n) const { return Where{this, n, 0}; }
    Where at(std::size_t i) const { return Where{this, {}, i}; }
};

class Packer {
  public:
    // With `emit`, the bytes go out in blocks of about 1 MiB as they are made (the counts that
    // precede a block are known by then); without, they collect in Packed::bytes.
    explicit Packer(const json::Reader& r, std::function<Result<void>(std::string_view)> emit = {})
        : r_(r), emit_(std::move(emit)) {}

    Result<Packed> run(const Value& root) {
        root_ = root;
        if (root.kind != Kind::object)
            return r_.error_at(
                root, "",
                "expected an object (the output of `sparksave dump --json`), found " +
                    std::string(json::kind_name(root.kind)));
        // Members may come in any order; each is taken once.
        struct Member {
            std::string_view name;
            Value value;
            bool present = false;
        };
        Member members[10];
        const std::string_view names[] = {
            "format",           "version",           "metadata", "entities", "customState",
            "customStateCount", "customStateAbsent", "trailing", "checksum", "complete"};
        for (std::size_t i = 0; i < 10; ++i) members[i].name = names[i];
        std::optional<Error> problem;
        r_.members(root, [&](std::string_view key, const Value& v) {
            for (auto& m : members) {
                if (m.name != key) continue;
                if (m.present) {
                    problem = r_.error_at(v, std::string(key), "this member appears twice");
                    return false;
                }
                m.value = v;
                m.present = true;
                return true;
            }
            problem = r_.error_at(
                v, display(key),
                "unknown member " + display(key, true) + " (a spark_save dump has " +
                    "format, version, metadata, entities, customState, customStateCount, "
                    "customStateAbsent, trailing, checksum, complete)");
            return false;
        });
        if (problem) return *problem;
        auto member = [&](std::string_view name) -> const Member& {
            for (auto& m : members)
                if (m.name == name) return m;
            return members[0];
        };
        if (member("complete").present)
            if (auto r = r_.check_complete(member("complete").value); !r) return r.error();
        for (std::string_view required : {"version", "metadata", "entities"})
            if (!member(required).present)
                return r_.error_at(root, "",
                                   fmt::format("expected a member \"{}\", found none", required));

        if (member("format").present && (member("format").value.kind != Kind::string ||
                                         r_.decoded(member("format").value) != "spark_save"))
            return r_.error_at(member("format").value, "format", "expected \"spark_save\"");
        auto version = unsigned_number(member("version").value, "version", 1, k_current_version);
        if (!version) return version.error();
        version_ = static_cast<std::uint32_t>(*version);
        w_.bytes(k_magic);
        w_.u32(version_);
        if (auto r = metadata(member("metadata").value); !r) return r.error();
        if (auto r = entities(member("entities").value); !r) return r.error();
        if (auto r = custom_state(member("customState"), member("customStateCount"),
                                  member("customStateAbsent"));
            !r)
            return r.error();
        if (member("trailing").present) {
            std::string bytes;
            if (auto r = read_bytes(member("trailing").value, "trailing", bytes); !r)
                return r.error();
            w_.bytes(bytes);
        }
        if (member("checksum").present && member("checksum").value.kind != Kind::string)
            return r_.error_at(member("checksum").value, "checksum",
                               "expected a string such as \"0x1a2b3c4d\"");
        if (version_ == k_current_version)
            w_.u32(crc32_update(crc_, w_.view())); // recomputed, whatever the JSON said
        if (auto r = drain(true); !r) return r.error();
        Packed out;
        out.bytes = std::move(w_).take();
        out.notes = std::move(notes_);
        return out;
    }

  private:
    Result<std::uint64_t> unsigned_number(const Value& v, const std::string& path,
                                          std::uint64_t min, std::uint64_t max) {
        std::uint64_t n = 0;
        std::string_view t = r_.raw(v);
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (v.kind != Kind::number || ec != std::errc() || p != t.data() + t.size() || n < min ||
            n > max)
            return r_.error_at(
                v, path,
                fmt::format("expected an integer from {} to {}, found {}", min, max, display(t)));
        return n;
    }

    // A byte string: a JSON string (UTF-8), or {"base64": "..."} for any bytes.
    Result<void> read_bytes(const Value& v, const Where& where, std::string& out) {
        out.clear();
        if (v.kind == Kind::string) {
            r_.decode(v, out);
            return {};
        }
        Value b64;
        if (v.kind == Kind::object && r_.find(v, "base64", b64) && b64.kind == Kind::string) {
            std::string text = r_.decoded(b64);
            if (!base64_decode(text, out))
                return r_.error_at(b64, where.str(),
                                   "expected standard base64 (A-Z a-z 0-9 + / and = padding)");
            return {};
        }
        return r_.error_at(v, where.str(),
                           "expected a string or {\"base64\": \"...\"}, found " +
                               std::string(json::kind_name(v.kind)));
    }
    Result<void> read_bytes(const Value& v, const std::string& path, std::string& out) {
        return read_bytes(v, Where{nullptr, path, 0, true}, out);
    }

    Result<void> string16(const Value& v, const Where& where) {
        if (auto r = read_bytes(v, where, scratch_); !r) return r;
        if (scratch_.size() > k_max_u16)
            return r_.error_at(
                v, where.str(),
                fmt::format("expected at most {} bytes, found {}", k_max_u16, scratch_.size()));
        w_.u16(static_cast<std::uint16_t>(scratch_.size()));
        w_.bytes(scratch_);
        return {};
    }

    // An array; calls fn(element, where) on each and returns the count, or the first error.
    template <class F>
    Result<std::size_t> each(const Value& v, const Where& where, std::string_view what, F&& fn) {
        if (v.kind != Kind::array)
            return r_.error_at(
                v, where.str(),
                fmt::format("expected an array of {}, found {}", what, json::kind_name(v.kind)));
        std::optional<Error> problem;
        std::size_t count = 0;
        r_.elements(v, [&](std::size_t i, const Value& e) {
            if (auto r = fn(e, where.at(i)); !r) {
                problem = r.error();
                return false;
            }
            ++count;
            return true;
        });
        if (problem) return *problem;
        return count;
    }
    template <class F>
    Result<std::size_t> each(const Value& v, const std::string& path, std::string_view what,
                             F&& fn) {
        const Where where{nullptr, path, 0, true};
        return each(v, where, what, std::forward<F>(fn));
    }

    Result<void> pair(const Value& v, const Where& where) {
        if (v.kind != Kind::array)
            return r_.error_at(v, where.str(),
                               "expected a [key, value] pair, found " +
                                   std::string(json::kind_name(v.kind)));
        std::size_t n = 0;
        std::optional<Error> problem;
        r_.elements(v, [&](std::size_t i, const Value& e) {
            ++n;
            if (i > 1) return false;
            if (auto r = string16(e, where.at(i)); !r) {
                problem = r.error();
                return false;
            }
            return true;
        });
        if (problem) return *problem;
        if (n != 2)
            return r_.error_at(v, where.str(),
                               fmt::format("expected a [key, value] pair, found {} elements", n));
        return {};
    }

    // The members of an object named in `names`, found in one pass (a member may be absent).
    template <std::size_t N>
    void members_of(const Value& object, const std::array<std::string_view, N>& names,
                    std::array<Value, N>& values, std::array<bool, N>& present) {
        present.fill(false);
        r_.members(object, [&](std::string_view key, const Value& v) {
            for (std::size_t i = 0; i < N; ++i)
                if (!present[i] && key == names[i]) {
                    values[i] = v;
                    present[i] = true;
                }
            return true;
        });
    }

    Result<void> metadata(const Value& v) {
        if (v.kind != Kind::object)
            return r_.error_at(v, "metadata", "expected an object with raw and fields");
        Value raw, fields;
        const bool has_raw = r_.find(v, "raw", raw);
        const bool has_fields = r_.find(v, "fields", fields);
        if (!has_raw && !has_fields)
            return r_.error_at(v, "metadata", "expected \"raw\" or \"fields\", found neither");
        std::string block;
        if (has_raw) {
            if (auto r = read_bytes(raw, "metadata.raw", block); !r) return r;
        }
        if (has_fields) {
            if (fields.kind != Kind::object)
                return r_.error_at(fields, "metadata.fields", "expected an object of field texts");
            auto from_fields = render_fields(fields);
            if (!from_fields) return from_fields.error();
            if (!has_raw) {
                block = std::move(*from_fields);
            } else if (fields_differ(block, fields)) {
                // The fields were edited: they win, and the block is rebuilt one field a line.
                notes_.emplace_back("metadata.fields differ from metadata.raw: the block was "
                                    "rebuilt from the fields");
                block = std::move(*from_fields);
            }
        }
        if (block.size() > 0xFFFF'FFFFu)
            return r_.error_at(v, "metadata", "the block is too large");
        w_.u32(static_cast<std::uint32_t>(block.size()));
        w_.bytes(block);
        return {};
    }

    // The JSON fields as token texts, for the fields of this version in block order (1.2,
    // k_meta_fields): a multi-part field (position) as its parts.
    Result<std::vector<std::string>> field_texts(const Value& fields) {
        std::vector<std::string> texts;
        for (const MetaFieldSpec& spec : k_meta_fields) {
            if (!in_version(spec, version_)) continue;
            const std::string_view name = spec.name;
            std::string path = "metadata.fields";
            append_path_name(path, name);
            Value f;
            if (!r_.find(fields, name, f))
                return r_.error_at(fields, path, "expected this field, found none");
            if (spec.parts > 1) {
                auto n = each(f, path, "three number texts",
                              [&](const Value& part, const Where& p) -> Result<void> {
                                  std::string text;
                                  if (auto r = read_bytes(part, p, text); !r) return r;
                                  texts.push_back(std::move(text));
                                  return {};
                              });
                if (!n) return n.error();
                if (*n != spec.parts)
                    return r_.error_at(f, path,
                                       fmt::format("expected 3 numbers (x, y, z), found {}", *n));
                continue;
            }
            std::string text;
            if (auto r = read_bytes(f, path, text); !r) return r.error();
            if (text.find('\n') != std::string::npos)
                return r_.error_at(
                    f, path, "expected one line, found a newline (a block field is one line)");
            texts.push_back(std::move(text));
        }
        return texts;
    }

    Result<std::string> render_fields(const Value& fields) {
        auto texts = field_texts(fields);
        if (!texts) return texts.error();
        std::vector<std::string_view> views(texts->begin(), texts->end());
        return layout_block(views, version_);
    }

    // Whether the JSON fields say something else than the raw block does.
    bool fields_differ(std::string_view block, const Value& fields) {
        auto texts = field_texts(fields);
        if (!texts) return true;
        MetadataBlock meta;
        auto ignore = [](std::size_t, std::string, std::string) {};
        parse_metadata_block(block, 0, version_, meta, ignore, ignore);
        if (meta.count != texts->size()) return true;
        for (std::size_t i = 0; i < meta.count; ++i)
            if (meta.fields[i].text != (*texts)[i]) return true;
        return false;
    }

    Result<void> entities(const Value& v) {
        const Where root{nullptr, "entities", 0, true};
        if (v.kind != Kind::array)
            return r_.error_at(
                v, root.str(),
                fmt::format("expected an array of entities, found {}", json::kind_name(v.kind)));
        // The count comes first in the file, and blocks may be handed on before the end.
        std::size_t count = 0;
        if (auto known = r_.known_count(v)) {
            count = *known;
        } else {
            r_.elements(v, [&](std::size_t, const Value&) { return ++count <= k_max_entities; });
        }
        if (count > k_max_entities)
            return r_.error_at(
                v, root.str(),
                fmt::format("expected at most {} entities, found more", k_max_entities));
        w_.u32(static_cast<std::uint32_t>(count));
        // Each entity in one forward pass (fast_entity); one that is not laid out as a dump lays
        // it out, or that is wrong, is read again member by member (entity), which says what
        // is wrong.
        std::size_t at = r_.skip_space_at(v.begin + 1);
        for (std::size_t i = 0; r_.at(at) != ']'; ++i) {
            const Where where = root.at(i);
            const std::size_t mark = w_.size();
            std::size_t end = fast_entity(at, where);
            if (end == 0) {
                w_.truncate(mark);
                Kind kind;
                const std::size_t e_end = r_.end_of(at, kind);
                if (auto r = entity(Value{kind, at, e_end}, where); !r) return r;
                end = e_end;
            }
            if (auto r = drain(false); !r) return r;
            at = r_.skip_space_at(end);
            if (r_.at(at) == ',') at = r_.skip_space_at(at + 1);
        }
        return {};
    }

    // ---- The forward pass: positions in validated text; 0 means "not as a dump lays it out".

    std::size_t bytes16_at(std::size_t p, const Where& where) {
        if (r_.at(p) != '"') return 0;
        const std::size_t end = r_.string_end_at(p);
        if (!string16(Value{Kind::string, p, end}, where)) return 0;
        return end;
    }

    // `"key": ` at p: the key decoded into key_, the position of the value.
    std::size_t key_at(std::size_t p) {
        if (r_.at(p) != '"') return 0;
        const std::size_t end = r_.string_end_at(p);
        key_.clear();
        r_.decode(Value{Kind::string, p, end}, key_);
        return r_.skip_space_at(r_.skip_space_at(end) + 1);
    }

    std::size_t fast_pair(std::size_t p, const Where& where) {
        if (r_.at(p) != '[') return 0;
        std::size_t q = r_.skip_space_at(p + 1);
        if ((q = bytes16_at(q, where.at(0))) == 0) return 0;
        q = r_.skip_space_at(q);
        if (r_.at(q) != ',') return 0;
        if ((q = bytes16_at(r_.skip_space_at(q + 1), where.at(1))) == 0) return 0;
        q = r_.skip_space_at(q);
        return r_.at(q) == ']' ? q + 1 : 0;
    }

    // An array whose elements `element` reads; the count (at most 65535) patched in first.
    template <class F> std::size_t fast_list(std::size_t p, const Where& where, F&& element) {
        if (r_.at(p) != '[') return 0;
        const std::size_t count_at = w_.size();
        w_.u16(0);
        std::size_t q = r_.skip_space_at(p + 1), n = 0;
        while (r_.at(q) != ']') {
            if (n == k_max_u16) return 0;
            if ((q = element(q, where.at(n++))) == 0) return 0;
            q = r_.skip_space_at(q);
            if (r_.at(q) == ',') q = r_.skip_space_at(q + 1);
        }
        patch_u16(count_at, n);
        return q + 1;
    }

    // An object with a byte-string member `first` and a list member `second`, in that order.
    template <class F>
    std::size_t fast_record(std::size_t p, const Where& where, std::string_view first,
                            std::string_view second, F&& list) {
        if (r_.at(p) != '{') return 0;
        std::size_t q = r_.skip_space_at(p + 1);
        if ((q = key_at(q)) == 0 || key_ != first) return 0;
        if ((q = bytes16_at(q, where.member(first))) == 0) return 0;
        q = r_.skip_space_at(q);
        if (r_.at(q) != ',') return 0;
        if ((q = key_at(r_.skip_space_at(q + 1))) == 0 || key_ != second) return 0;
        if ((q = list(q, where.member(second))) == 0) return 0;
        q = r_.skip_space_at(q);
        return r_.at(q) == '}' ? q + 1 : 0;
    }

    std::size_t fast_entity(std::size_t p, const Where& where) {
        return fast_record(p, where, "name", "components", [&](std::size_t q, const Where& cw) {
            return fast_list(q, cw, [&](std::size_t c, const Where& one) {
                return fast_record(
                    c, one, "type", "properties", [&](std::size_t pp, const Where& pw) {
                        return fast_list(pp, pw, [&](std::size_t x, const Where& xw) {
                            return fast_pair(x, xw);
                        });
                    });
            });
        });
    }

    // ---- The same, member by member, for any layout, with the messages.

    Result<void> entity(const Value& e, const Where& where) {
        static constexpr std::array<std::string_view, 2> k_entity{"name", "components"};
        static constexpr std::array<std::string_view, 2> k_component{"type", "properties"};
        if (e.kind != Kind::object)
            return r_.error_at(e, where.str(), "expected an entity object {name, components}");
        std::array<Value, 2> m;
        std::array<bool, 2> has;
        members_of(e, k_entity, m, has);
        if (!has[0]) return r_.error_at(e, where.str(), "expected a member \"name\"");
        if (!has[1]) return r_.error_at(e, where.str(), "expected a member \"components\"");
        if (auto r = string16(m[0], where.member("name")); !r) return r;
        const std::size_t comp_count_at = w_.size();
        w_.u16(0);
        const Where cwhere = where.member("components");
        auto c = each(
            m[1], cwhere, "components", [&](const Value& comp, const Where& cw) -> Result<void> {
                if (comp.kind != Kind::object)
                    return r_.error_at(comp, cw.str(),
                                       "expected a component object {type, properties}");
                std::array<Value, 2> cm;
                std::array<bool, 2> chas;
                members_of(comp, k_component, cm, chas);
                if (!chas[0]) return r_.error_at(comp, cw.str(), "expected a member \"type\"");
                if (!chas[1])
                    return r_.error_at(comp, cw.str(), "expected a member \"properties\"");
                if (auto r = string16(cm[0], cw.member("type")); !r) return r;
                const std::size_t prop_count_at = w_.size();
                w_.u16(0);
                const Where pwhere = cw.member("properties");
                auto p = each(cm[1], pwhere, "[key, value] pairs",
                              [&](const Value& pv, const Where& pw) { return pair(pv, pw); });
                if (!p) return p.error();
                if (*p > k_max_u16)
                    return r_.error_at(
                        cm[1], pwhere.str(),
                        fmt::format("expected at most {} properties, found {}", k_max_u16, *p));
                patch_u16(prop_count_at, *p);
                return {};
            });
        if (!c) return c.error();
        if (*c > k_max_u16)
            return r_.error_at(
                m[1], cwhere.str(),
                fmt::format("expected at most {} components, found {}", k_max_u16, *c));
        patch_u16(comp_count_at, *c);
        return {};
    }

    template <class M>
    Result<void> custom_state(const M& pairs, const M& declared, const M& absent) {
        const bool is_absent = absent.present && r_.is_true(absent.value);
        if (absent.present && absent.value.kind != Kind::boolean)
            return r_.error_at(absent.value, "customStateAbsent", "expected true or false");
        if (is_absent) {
            if (current_rules(version_))
                return r_.error_at(
                    absent.value, "customStateAbsent",
                    fmt::format("v{} files always have a custom-state count", version_));
            if (pairs.present && (pairs.value.kind != Kind::array ||
                                  r_.raw(pairs.value).find('[', 1) != std::string_view::npos))
                return r_.error_at(pairs.value, "customState",
                                   "expected no pairs ([]) with customStateAbsent: true");
            return {};
        }
        // 1.4: a v3/v4 file always has its custom-state count; a v1/v2 file has one or ends
        // after the entities (customStateAbsent). A dump always has the member, so a missing
        // one is refused, not read as no pairs.
        if (!pairs.present)
            return r_.error_at(
                root_, "",
                current_rules(version_)
                    ? fmt::format("expected a member \"customState\" (a v{} file always has its "
                                  "custom-state count, FORMATS.md 1.4), found none",
                                  version_)
                    : std::string("expected a member \"customState\" (the pairs, or "
                                  "\"customStateAbsent\": true for a file without a "
                                  "custom-state count), found none"));
        const std::size_t count_at = w_.size();
        w_.u32(0);
        std::size_t n = 0;
        if (pairs.present) {
            const Where where{nullptr, "customState", 0, true};
            auto c = each(pairs.value, where, "[key, value] pairs",
                          [&](const Value& pv, const Where& pw) { return pair(pv, pw); });
            if (!c) return c.error();
            n = *c;
        }
        std::uint64_t count = n;
        if (declared.present) {
            auto d = unsigned_number(declared.value, "customStateCount", 0, k_max_custom_state);
            if (!d) return d.error();
            count = *d;
        }
        if (count > k_max_custom_state)
            return r_.error_at(
                pairs.value, "customState",
                fmt::format("expected at most {} pairs, found {}", k_max_custom_state, count));
        w_.patch_u32(count_at, static_cast<std::uint32_t>(count));
        return {};
    }

    void patch_u16(std::size_t at, std::size_t v) {
        w_.patch_u16(at, static_cast<std::uint16_t>(v));
    }

    // Hands the bytes made so far to emit_ (keeping the running CRC) once there is a block of
    // them, or at the end.
    Result<void> drain(bool end) {
        if (!emit_ || (!end && w_.size() < (1u << 20))) return {};
        if (!end) crc_ = crc32_update(crc_, w_.view());
        auto r = emit_(w_.view());
        w_.clear();
        return r;
    }

    const json::Reader& r_;
    Value root_;
    std::function<Result<void>(std::string_view)> emit_;
    std::uint32_t crc_ = 0;
    ByteWriter w_;
    std::uint32_t version_ = 0;
    std::string scratch_;
    std::string key_;
    std::vector<std::string> notes_;
};

} // namespace

Result<Packed> from_json(std::string_view text) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    return Packer(reader).run(*root);
}

Result<Packed> from_json_to(std::string_view text,
                            const std::function<Result<void>(std::string_view)>& emit) {
    json::Reader reader(text);
    auto root = reader.validate();
    if (!root) return root.error();
    return Packer(reader, emit).run(*root);
}

} // namespace sparksave::spark_save
