// `pack` for text archives (FORMATS.md 2): the JSON of `dump --json` (schema: json.cpp) back to
// the archive's bytes, laid out exactly as write.cpp lays out a tree (one TAB per depth, `,`
// after every child but the last, `}` at the class's own depth, LF line ends, text verbatim).
// It streams from the JSON text to the bytes: no tree and no DOM are built; the recursion
// follows the classes and stops at k_max_depth.
//
// What is refused here, and what is left to the reader. The caller (`sparksave pack`) reads
// the bytes back with summarize() and refuses every error, so the rules of the format (a bool
// that is not true/false, nbElements against the pairs, a count or type the engine's readers
// refuse, ...) live in the reader only. This file refuses JSON that is not a dump, and what
// the grammar cannot hold: text that the reader would read back as something else (spec.hpp
// says how it tells line shapes apart):
//   - a line feed in the version line, a name, a type, a class name or a value: there is no
//     escaping and every line ends at LF (a multi-line string value is exactly what the
//     engine's writer corrupts, FORMATS.md 2);
//   - a name, or an unnamed class's class name, starting with a TAB (read as indentation);
//   - an attribute name that starts with `__PGSA ` or holds `: __PGSA ` (the line's first
//     `: __PGSA ` ends the name);
//   - a `{` in a type name (the value starts at the first `{` after `__PGSA `);
//   - `: ` in a class name or in the name of a class (a class line is split at its first `: `);
//   - a top-level entry without a name (the engine stops reading there, and json.cpp's schema
//     has a name on every top-level entry);
//   - more than k_max_depth nested classes, or an archive above k_max_file_size.
// Given these, what is written reads back as exactly the items the JSON gives, or the reader
// reports an error (a bad value, `__PGSA` in a class line, ...): never as something else in
// silence (tests/unit/test_text_archive_pack.cpp checks this on hostile text). And
// `pack(dump --json X) == X` byte for byte for every X that reads without error.
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/json_out.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/text_archive.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <optional>

namespace sparksave::text_archive {

namespace {

using json::Kind;
using json::Value;

// A member of a JSON object, taken once.
struct Member {
    explicit Member(std::string_view k) : key(k) {}
    std::string_view key;
    Value value;
    bool present = false;
};

class Packer {
  public:
    explicit Packer(const json::Reader& r) : r_(r) {}

    Result<Packed> run(const Value& root) {
        if (root.kind != Kind::object)
            return fail(root, "expected an object (the output of `sparksave dump --json`), found " +
                                  std::string(json::kind_name(root.kind)));
        std::array m{Member("format"), Member("version"), Member("versionLine"), Member("entries"),
                     Member("complete")};
        if (auto r = collect(root, m, "format, version, versionLine, entries, complete"); !r)
            return r.error();
        const Member &format = m[0], &version = m[1], &version_line = m[2], &entries = m[3];
        if (m[4].present)
            if (auto r = r_.check_complete(m[4].value); !r) return r.error();
        if (format.present &&
            (format.value.kind != Kind::string || r_.decoded(format.value) != "text_archive"))
            return fail(format.value, "format",
                        "expected \"text_archive\", found " + shown(format.value));
        if (!version.present)
            return fail(root, "",
                        "expected a member \"version\" (1, or null for a version "
                        "line other than 1.0.0), found none");
        if (!entries.present)
            return fail(root, "", "expected a member \"entries\" (an array), found none");

        // FORMATS.md 2: the version line is the whole first line; `version` says whether it is
        // the one the engine reads (json.cpp).
        const bool known = version.value.kind == Kind::number && r_.raw(version.value) == "1";
        if (!known && version.value.kind != Kind::null)
            return fail(version.value, "version",
                        "expected 1 (the version line is 1.0.0) or null (another version line, "
                        "given in versionLine), found " +
                            shown(version.value));
        std::string line;
        if (version_line.present) {
            if (auto r = text(version_line.value, "versionLine", line); !r) return r.error();
        }
        if (known && version_line.present && line != k_version_line)
            return fail(version_line.value, "versionLine",
                        fmt::format("expected \"{}\" (\"version\": 1), found {}: for another "
                                    "version line, set \"version\" to null",
                                    k_version_line, excerpt(line)));
        if (!known && !version_line.present)
            return fail(root, "",
                        "expected a member \"versionLine\" with \"version\": null, found none");
        if (!known && line == k_version_line)
            return fail(
                version.value, "version",
                fmt::format("expected 1 (the version line is \"{}\"), found null", k_version_line));
        out_ += known ? k_version_line : std::string_view(line);
        out_ += '\n';

        if (entries.value.kind != Kind::array)
            return fail(entries.value, "entries",
                        "expected an array of entries, found " +
                            std::string(json::kind_name(entries.value.kind)));
        path_ = "entries";
        if (auto r = items(entries.value, 0); !r) return r.error();
        Packed packed;
        packed.bytes = std::move(out_);
        return packed;
    }

  private:
    // The items of an array at `depth` (0: the top-level entries), path_ being its path.
    Result<void> items(const Value& array, std::size_t depth) {
        std::optional<Error> problem;
        const std::size_t mark = path_.size();
        std::size_t count = 0;
        r_.elements(array, [&](std::size_t i, const Value& v) {
            append_path_index(path_, i);
            // A comma after every child but the last; none between top-level entries.
            if (depth > 0 && i > 0) out_ += ",\n";
            if (auto r = item(v, depth); !r) {
                problem = r.error();
                return false;
            }
            if (depth == 0) out_ += '\n';
            if (out_.size() > k_max_file_size) {
                problem = too_large(v);
                return false;
            }
            path_.resize(mark);
            ++count;
            return true;
        });
        if (problem) return *problem;
        if (depth > 0 && count > 0) out_ += '\n';
        return {};
    }

    // One item (json.cpp): an attribute line, or a class with its children and closing brace,
    // without the comma and LF that follow it.
    Result<void> item(const Value& v, std::size_t depth) {
        if (v.kind != Kind::object)
            return fail(v, "",
                        "expected an attribute {\"name\", \"type\", \"value\"} or a class "
                        "{\"name\", \"class\", \"children\"}, found " +
                            std::string(json::kind_name(v.kind)));
        std::array m{Member("name"), Member("type"), Member("value"), Member("class"),
                     Member("children")};
        if (auto r = collect(v, m, "name, then type and value, or class and children"); !r)
            return r;
        const Member &name = m[0], &type = m[1], &value = m[2], &cls = m[3], &children = m[4];
        const bool attribute = type.present || value.present;
        if (attribute && (cls.present || children.present))
            return fail(v, "",
                        "expected an attribute (type and value) or a class (class and "
                        "children), found members of both");
        if (!attribute && !cls.present && !children.present)
            return fail(v, "",
                        "expected \"type\" and \"value\" (an attribute) or \"class\" and "
                        "\"children\" (a class), found neither");
        for (const Member* need :
             attribute ? std::array{&type, &value} : std::array{&cls, &children})
            if (!need->present)
                return fail(v, "", fmt::format("expected a member \"{}\", found none", need->key));
        if (depth == 0 && !name.present)
            return fail(v, "",
                        "expected a member \"name\": every top-level entry has one (the "
                        "engine stops reading the archive at an unnamed entry)");
        if (!attribute && depth >= k_max_depth)
            return fail(v, "",
                        fmt::format("expected at most {} nested classes (sparksave's "
                                    "limit for text archives), found more",
                                    k_max_depth));

        out_.append(depth, '\t');
        if (name.present) {
            if (auto r = text(name.value, "name", scratch_); !r) return r;
            const std::string_view n = scratch_;
            std::string_view problem;
            if (n.starts_with('\t'))
                problem = "a name starting with a TAB (the reader takes it for indentation)";
            else if (attribute && n.starts_with(k_attribute_prefix))
                problem = "an attribute name starting with `__PGSA ` (the reader takes the line "
                          "for an unnamed attribute)";
            else if (attribute && n.find(k_named_attribute) != std::string_view::npos)
                problem = "an attribute name holding `: __PGSA ` (the reader ends the name at "
                          "the first one)";
            else if (!attribute && n.find(k_name_separator) != std::string_view::npos)
                problem = "a class's name holding \": \" (the reader splits a class line at its "
                          "first \": \")";
            if (!problem.empty())
                return fail(name.value, "name",
                            fmt::format("expected a name the archive can hold, found {}: {}",
                                        excerpt(n), problem));
            out_ += n;
            out_ += k_name_separator;
        }
        if (attribute) {
            if (auto r = text(type.value, "type", scratch_); !r) return r;
            if (scratch_.find('{') != std::string::npos)
                return fail(type.value, "type",
                            "expected a type name without `{` (the value starts at the first "
                            "`{`), found " +
                                excerpt(scratch_));
            out_ += k_attribute_prefix;
            out_ += scratch_;
            out_ += " {";
            // The value is verbatim, with no escaping (FORMATS.md 2).
            if (auto r = text(value.value, "value", scratch_); !r) return r;
            out_ += scratch_;
            out_ += '}';
            return {};
        }
        if (auto r = text(cls.value, "class", scratch_); !r) return r;
        if (scratch_.find(k_name_separator) != std::string::npos)
            return fail(cls.value, "class",
                        "expected a class name without \": \" (the reader splits a class line "
                        "at its first \": \"), found " +
                            excerpt(scratch_));
        if (!name.present && scratch_.starts_with('\t'))
            return fail(cls.value, "class",
                        "expected an unnamed class's class name not starting with a TAB (the "
                        "reader takes it for indentation), found " +
                            excerpt(scratch_));
        out_ += scratch_;
        out_ += " {\n";
        if (children.value.kind != Kind::array)
            return fail(children.value, "children",
                        "expected an array of items, found " +
                            std::string(json::kind_name(children.value.kind)));
        const std::size_t mark = path_.size();
        append_path_name(path_, "children");
        if (auto r = items(children.value, depth + 1); !r) return r;
        path_.resize(mark);
        out_.append(depth, '\t');
        out_ += '}';
        return {};
    }

    // A member of one line's text: a byte string without a line feed, and room for it.
    Result<void> text(const Value& v, std::string_view member, std::string& out) {
        if (auto r = bytes(v, member, out); !r) return r;
        if (out.find('\n') != std::string::npos)
            return fail(v, member,
                        fmt::format("expected one line, found a line feed in {}: every line of "
                                    "an archive ends at a line feed and there is no escaping{}",
                                    excerpt(out),
                                    member == "value" ? " (the engine's writer corrupts a "
                                                        "multi-line value this way, FORMATS.md 2)"
                                                      : ""));
        if (out.size() > k_max_file_size - std::min(out_.size(), k_max_file_size))
            return too_large(v, member);
        return {};
    }

    // FORMATS.md has no size limit; ours (k_max_file_size) keeps the output bounded.
    Error too_large(const Value& v, std::string_view member = {}) const {
        return fail(v, member,
                    fmt::format("expected an archive of at most {} bytes (64 MiB, sparksave's "
                                "limit for text archives), found more",
                                k_max_file_size));
    }

    // A byte string (json.cpp): a JSON string when the bytes are UTF-8, else {"base64": "..."}.
    Result<void> bytes(const Value& v, std::string_view member, std::string& out) {
        out.clear();
        // Decoding never grows the text, and no byte takes more than 6 characters of JSON
        // (\u00XX): refuse what cannot fit before allocating for it.
        if (v.end - v.begin > 6 * k_max_file_size + 16) return too_large(v, member);
        if (v.kind == Kind::string) {
            r_.decode(v, out);
            return {};
        }
        if (v.kind == Kind::object) {
            Value b64;
            std::size_t members = 0;
            bool only_base64 = true;
            r_.members(v, [&](std::string_view key, const Value& e) {
                ++members;
                if (key != "base64") only_base64 = false;
                b64 = e;
                return only_base64;
            });
            if (members == 1 && only_base64 && b64.kind == Kind::string) {
                std::string encoded = r_.decoded(b64);
                if (base64_decode(encoded, out)) return {};
                std::string path = path_;
                append_path_name(path, member);
                append_path_name(path, "base64");
                return r_.error_at(b64, std::move(path),
                                   "expected standard base64 (A-Z a-z 0-9 + / and = padding)");
            }
        }
        return fail(v, member, "expected a string or {\"base64\": \"...\"}, found " + shown(v));
    }

    // Takes the members named in `m` (in any order, each at most once) and refuses any other.
    template <std::size_t N>
    Result<void> collect(const Value& object, std::array<Member, N>& m, std::string_view names) {
        std::optional<Error> problem;
        r_.members(object, [&](std::string_view key, const Value& v) {
            for (Member& member : m) {
                if (member.key != key) continue;
                if (member.present) {
                    problem = fail(v, key, "expected each member once, found this one again");
                    return false;
                }
                member.value = v;
                member.present = true;
                return true;
            }
            // A key of any length names the path only when it is short enough to read.
            problem = fail(v, key.size() <= 256 ? key : std::string_view{},
                           fmt::format("unknown member {} (expected {})", excerpt(key), names));
            return false;
        });
        if (problem) return *problem;
        return {};
    }

    // A JSON value for a message: its JSON text (escaped, cut short), or its kind.
    std::string shown(const Value& v) const {
        if (v.kind == Kind::object || v.kind == Kind::array)
            return std::string(json::kind_name(v.kind));
        const std::string_view raw = r_.raw(v);
        return raw.size() <= 48 ? display(raw) : display(raw.substr(0, 48)) + "...";
    }

    // An error at `v`, whose JSON path is path_ and then `member` (when not empty).
    Error fail(const Value& v, std::string_view member, std::string message) const {
        std::string path = path_;
        if (!member.empty()) append_path_name(path, member);
        return r_.error_at(v, std::move(path), std::move(message));
    }
    Error fail(const Value& v, std::string message) const {
        return fail(v, {}, std::move(message));
    }

    const json::Reader& r_;
    std::string out_;
    std::string path_; // the JSON path of the item being packed
    std::string scratch_;
};

} // namespace

Result<Packed> from_json(std::string_view json) {
    json::Reader reader(json);
    auto root = reader.validate();
    if (!root) return root.error();
    return Packer(reader).run(*root);
}

} // namespace sparksave::text_archive
