// Text archive `pack` (from_json, the inverse of `dump --json`) and `diff` (formats/README.md §2):
// byte-exact round trips for the corpus, for every truncation and byte flip of it that reads
// without error and for generated archives; JSON that is not a dump refused at its JSON path;
// hostile text either refused, reported by the reader, or read back exactly as the JSON said;
// diff by entry name, class child name and Vector position, with paths that resolve.
#include <doctest/doctest.h>

#include "support.hpp"
#include "text_archive/spec.hpp"

#include "spark_save/api.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/node_path.hpp"
#include "text_archive/api.hpp"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <random>

using namespace sparksave;
namespace ta = sparksave::text_archive;

namespace {

Parsed parse(std::string bytes) {
    return ta::read(std::make_shared<const Source>(std::move(bytes)));
}

std::string dump_json(const Document& doc) {
    std::string json;
    ta::to_json(doc, json);
    return json;
}

// pack(dump --json bytes), which must succeed.
std::string repack(const std::string& bytes) {
    Parsed p = parse(bytes);
    auto packed = ta::from_json(dump_json(p.doc));
    REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
    CHECK(packed->notes.empty());
    return packed->bytes;
}

// An item of an archive, as the JSON of json.cpp describes it.
struct Item {
    std::optional<std::string> name; // none: unnamed
    bool is_class = false;
    std::string tag; // the type or class name
    std::string value;
    std::vector<Item> children;
};

Item attribute(std::optional<std::string> name, std::string type, std::string value) {
    return Item{std::move(name), false, std::move(type), std::move(value), {}};
}
Item klass(std::optional<std::string> name, std::string class_name, std::vector<Item> children) {
    return Item{std::move(name), true, std::move(class_name), {}, std::move(children)};
}

// The archive's bytes, straight from the grammar of formats/README.md §2 (not from write.cpp).
void write_item(const Item& it, std::size_t depth, std::string& out) {
    out.append(depth, '\t');
    if (it.name) out += *it.name + ": ";
    if (!it.is_class) {
        out += "__PGSA " + it.tag + " {" + it.value + "}";
        return;
    }
    out += it.tag + " {\n";
    for (std::size_t i = 0; i < it.children.size(); ++i) {
        write_item(it.children[i], depth + 1, out);
        out += i + 1 < it.children.size() ? ",\n" : "\n";
    }
    out.append(depth, '\t');
    out += '}';
}
std::string archive_bytes(const std::vector<Item>& entries) {
    std::string out = "1.0.0\n";
    for (const Item& e : entries) {
        write_item(e, 0, out);
        out += '\n';
    }
    return out;
}

// A JSON string for any bytes: escaped by hand when UTF-8, else {"base64": ...}.
void json_bytes(std::string& out, std::string_view bytes) {
    if (!is_valid_utf8(bytes)) {
        out += "{\"base64\": \"" + base64_encode(bytes) + "\"}";
        return;
    }
    out += '"';
    for (unsigned char c : bytes) {
        if (c == '"' || c == '\\')
            out += {'\\', static_cast<char>(c)};
        else if (c < 0x20)
            out += fmt::format("\\u{:04x}", c);
        else
            out += static_cast<char>(c);
    }
    out += '"';
}

// The JSON of an item, its members in an order `rng` picks (pack takes them in any order).
void json_item(const Item& it, std::mt19937& rng, std::string& out) {
    std::vector<std::string> members;
    auto member = [&](std::string_view key, auto&& write) {
        std::string m = fmt::format("\"{}\": ", key);
        write(m);
        members.push_back(std::move(m));
    };
    if (it.name) member("name", [&](std::string& m) { json_bytes(m, *it.name); });
    member(it.is_class ? "class" : "type", [&](std::string& m) { json_bytes(m, it.tag); });
    if (it.is_class) {
        member("children", [&](std::string& m) {
            m += '[';
            for (std::size_t i = 0; i < it.children.size(); ++i) {
                if (i) m += ", ";
                json_item(it.children[i], rng, m);
            }
            m += ']';
        });
    } else {
        member("value", [&](std::string& m) { json_bytes(m, it.value); });
    }
    std::shuffle(members.begin(), members.end(), rng);
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) out += (i ? ", " : "") + members[i];
    out += '}';
}
std::string json_of(const std::vector<Item>& entries, std::mt19937& rng) {
    std::string out = "{\"format\": \"text_archive\", \"version\": 1, \"entries\": [";
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i) out += ",\n";
        json_item(entries[i], rng, out);
    }
    return out + "]}";
}

// Whether the tree holds exactly the item (names, empty vs absent names, tags, values, order).
bool same(const Document& doc, NodeId id, const Item& it) {
    const Node& n = doc.node(id);
    const bool named = !doc.name(id).empty() || (n.flags & ta::k_flag_empty_name);
    if (named != it.name.has_value() || (it.name && doc.name(id) != *it.name)) return false;
    if (doc.tag(id) != it.tag) return false;
    if (!it.is_class) return n.kind == NodeKind::scalar && doc.value(id) == it.value;
    if (n.kind != NodeKind::object && n.kind != NodeKind::list) return false;
    if (doc.child_count(id) != it.children.size()) return false;
    std::size_t i = 0;
    for (NodeId c : doc.children(id))
        if (!same(doc, c, it.children[i++])) return false;
    return true;
}
bool same(const Document& doc, const std::vector<Item>& entries) {
    if (doc.child_count(doc.root()) != entries.size()) return false;
    std::size_t i = 0;
    for (NodeId c : doc.children(doc.root()))
        if (!same(doc, c, entries[i++])) return false;
    return true;
}

// What pack must refuse (pack.cpp's list, restated from the grammar): text the reader would
// read back as something else.
bool unholdable(const Item& it, std::size_t depth) {
    auto has = [](const std::string& s, std::string_view what) {
        return s.find(what) != std::string::npos;
    };
    if (depth == 0 && !it.name) return true;
    if (it.name) {
        const std::string& n = *it.name;
        if (has(n, "\n") || n.starts_with('\t')) return true;
        if (!it.is_class && (n.starts_with("__PGSA ") || has(n, ": __PGSA "))) return true;
        if (it.is_class && has(n, ": ")) return true;
    }
    if (has(it.tag, "\n") || has(it.value, "\n")) return true;
    if (!it.is_class) return has(it.tag, "{");
    if (has(it.tag, ": ") || (!it.name && it.tag.starts_with('\t'))) return true;
    if (depth >= ta::k_max_depth) return true;
    for (const Item& c : it.children)
        if (unholdable(c, depth + 1)) return true;
    return false;
}

// A random archive the engine's writer could have written and that reads without errors: every
// type with valid values, unknown types, the containers, empty classes and strings, unnamed and
// odd bytes in values and names (names the engine reads back as written: formats/README.md §2.1).
class Generator {
  public:
    explicit Generator(std::uint32_t seed) : rng_(seed) {}
    std::uint64_t serial_ = 0;
    std::mt19937& rng() { return rng_; }
    std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

    // Text from pieces that stress the grammar; `value`: anything but a line feed.
    std::string text(std::size_t max_pieces, bool value) {
        static const char* const value_pieces[] = {
            "a",    "xyz",      " ",      "  ",   "{",   "}",  ",",     ": ",
            "},",   "{}",       "__PGSA", "\t",   "\r",  "\"", "\\",    "\x01",
            "\x7f", "\xc3\xa9", "\xff",   "\xc3", "1.5", "-",  "Vector"};
        static const char* const name_pieces[] = {"a",  "b_c",      "9",    " ",    "-",
                                                  ".",  "{",        "}",    ",",    ":",
                                                  "\"", "\xc3\xa9", "\xfe", "\x01", "__PGSA"};
        std::string s;
        const std::size_t n = pick(max_pieces + 1);
        for (std::size_t i = 0; i < n; ++i)
            s += value ? value_pieces[pick(std::size(value_pieces))]
                       : name_pieces[pick(std::size(name_pieces))];
        return s;
    }

    // A name the reader keeps as it is (a `: ` in an attribute's name is only a warning).
    // Unique (the engine reads the first child, or the last entry, of a repeated name), with no
    // blank at either end (the engine trims them), no `: ` (it cuts there), no "__PGSA" (it
    // takes the first marker of the line) and not empty (its lookup finds an empty placeholder).
    std::string name() {
        std::string n = text(4, false);
        for (std::size_t at; (at = n.find("__PGSA")) != std::string::npos;) n.erase(at, 6);
        for (std::size_t at; (at = n.find(": ")) != std::string::npos;) n[at + 1] = ':';
        return "n" + n + "." + std::to_string(serial_++);
    }

    // What a class line can hold without an error: no `: ` and no `__PGSA` (formats/README.md §2).
    static std::string class_line_text(std::string s) {
        for (std::size_t at; (at = s.find("__PGSA")) != std::string::npos;) s.erase(at, 6);
        for (std::size_t at; (at = s.find(": ")) != std::string::npos;) s[at + 1] = ':';
        return s;
    }
    Item klass(std::optional<std::string> name, std::string class_name,
               std::vector<Item> children) {
        if (name) name = class_line_text(*name);
        class_name = class_line_text(std::move(class_name));
        // nor `:` before the ` {`, which would make a second ": " on the line
        if (class_name.ends_with(':')) class_name += '.';
        return ::klass(std::move(name), std::move(class_name), std::move(children));
    }

    Item leaf(std::optional<std::string> name) {
        switch (pick(9)) {
        case 0:
            return attribute(name, "bool", pick(2) ? "true" : "false");
        case 1:
            return attribute(name, "int", std::to_string(static_cast<std::int32_t>(rng_())));
        case 2:
            return attribute(name, "unsigned int", std::to_string(rng_()));
        case 3:
            return attribute(name, "size_t", std::to_string(std::uint64_t{rng_()} << 20));
        case 4:
            return attribute(name, "float",
                             fmt::format("{:f}", static_cast<float>(rng_() % 100000) / 64 - 500));
        case 5:
            return attribute(name, "double", fmt::format("{:f}", static_cast<double>(rng_()) / 3));
        case 6: {
            std::string type = "my type " + text(2, false);
            std::erase(type, '{');
            return attribute(name, std::move(type), text(6, true));
        }
        default:
            return attribute(name, "string", text(8, true));
        }
    }

    // One of the engine's containers, valid.
    Item container(std::optional<std::string> name) {
        switch (pick(4)) {
        case 0: {
            const std::size_t dims = 2 + pick(3);
            std::vector<Item> c;
            for (std::size_t i = 0; i < dims; ++i)
                c.push_back(attribute(std::string(1, "xyzw"[i]), "float", "1.500000"));
            return klass(name, fmt::format("Vector {}D", dims), std::move(c));
        }
        case 1: {
            const std::size_t pairs = pick(3);
            std::vector<Item> c{attribute("nbElements", "size_t", std::to_string(pairs))};
            for (std::size_t i = 0; i < pairs; ++i) {
                // distinct keys: the engine's map keeps the last pair of a key
                c.push_back(attribute(fmt::format("key{}", i), "string",
                                      text(3, true) + "#" + std::to_string(i)));
                c.push_back(pick(2) ? leaf(fmt::format("value{}", i))
                                    : klass(fmt::format("value{}", i), "Inner", {}));
            }
            return klass(name, "UnorderedMap", std::move(c));
        }
        case 2: {
            const std::size_t pairs = pick(3);
            std::vector<Item> c{attribute("nbValue", "size_t", std::to_string(pairs))};
            for (std::size_t i = 0; i < pairs; ++i) {
                // distinct ids: the engine keeps the first pair of an id
                c.push_back(attribute(fmt::format("id{}", i), "string",
                                      text(3, true) + "#" + std::to_string(i)));
                c.push_back(
                    klass(fmt::format("value{}", i), "ElementType",
                          {attribute("type", "string", "int"), attribute("data", "int", "7")}));
            }
            return klass(name, "SaveData", std::move(c));
        }
        default: {
            std::vector<Item> c;
            for (std::size_t i = pick(4); i > 0; --i) c.push_back(leaf(std::nullopt));
            return klass(name, "Vector", std::move(c));
        }
        }
    }

    Item node(std::optional<std::string> name, std::size_t depth) {
        if (depth > 6 || pick(3) != 0) return leaf(std::move(name));
        if (pick(5) == 0) return container(std::move(name));
        const bool vector = pick(4) == 0;
        std::vector<Item> c;
        for (std::size_t i = pick(5); i > 0; --i) {
            std::optional<std::string> child;
            if (!vector && pick(6) != 0) child = name_for_child();
            c.push_back(node(std::move(child), depth + 1));
        }
        // Class names with spaces and odd bytes, never a container's.
        return klass(std::move(name), vector ? "Vector" : "C" + text(3, false), std::move(c));
    }

    std::string name_for_child() { return name(); }

    std::vector<Item> archive() {
        std::vector<Item> entries;
        for (std::size_t i = pick(6); i > 0; --i) {
            entries.push_back(node("e" + name(), 0));
        }
        return entries;
    }

  private:
    std::mt19937 rng_;
};

// A chain of `levels` nested classes around one attribute.
Item chain(std::size_t levels) {
    Item it = attribute("leaf", "int", "1");
    for (std::size_t i = 0; i < levels; ++i) it = klass("c", "C", {std::move(it)});
    return it;
}

} // namespace

TEST_CASE("text archive pack: the diff files pack back byte for byte, invalid files safely") {
    // The valid corpus and its golden dumps pack back: tests/corpus/test_corpus.cpp.
    std::size_t n = test::corpus_files(test::testdata() / "text_archive", "valid", ".sz").size();
    for (const auto& file : test::corpus_files(test::testdata() / "text_archive", "diff", ".sz")) {
        CAPTURE(file.filename().string());
        const std::string bytes = test::read_bytes(file);
        CHECK_FALSE(parse(bytes).findings.has_errors());
        CHECK(repack(bytes) == bytes);
        ++n;
    }
    CHECK(n >= 15);
    // Invalid files are not promised a round trip, but packing their dump never crashes, and
    // a file read with a wrong version line (only that error) comes back as it was.
    for (const auto& file :
         test::corpus_files(test::testdata() / "text_archive", "invalid", ".sz")) {
        CAPTURE(file.filename().string());
        const std::string bytes = test::read_bytes(file);
        Parsed p = parse(bytes);
        auto packed = ta::from_json(dump_json(p.doc));
        const bool only_version =
            p.findings.error_count() == 1 && p.findings.items().size() >= 1 &&
            p.findings.first_error()->code == ErrorCode::unsupported_version &&
            bytes.find('\n') != std::string::npos;
        if (only_version) {
            REQUIRE(packed);
            CHECK(packed->bytes == bytes);
        }
    }
}

TEST_CASE("text archive pack: every truncation and byte flip that reads cleanly packs back") {
    std::size_t checked = 0;
    for (const auto& file : test::corpus_files(test::testdata() / "text_archive", "valid", ".sz")) {
        CAPTURE(file.filename().string());
        const std::string bytes = test::read_bytes(file);
        auto check = [&](const std::string& variant) {
            Parsed p = parse(variant);
            // pack writes the writer's form: a variant with notes, or with text the engine
            // ignores after a value (a bad_syntax warning), differs from it.
            if (p.findings.has_errors() || p.findings.note_count() > 0) return;
            for (const auto& f : p.findings.items())
                if (f.code == ErrorCode::bad_syntax) return;
            auto packed = ta::from_json(dump_json(p.doc));
            REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
            CHECK(packed->bytes == variant);
            ++checked;
        };
        // The big deep-nesting file (one entry: no proper prefix reads cleanly) costs much
        // more per variant: one kind of flip at every third byte there keeps the test quick
        // (the corpus test reads all of its variants).
        const bool big = bytes.size() > 2048;
        for (std::size_t cut = 0; cut < bytes.size() && !big; ++cut) check(bytes.substr(0, cut));
        for (std::size_t i = 0; i < bytes.size(); i += big ? 3 : 1) {
            for (int mask : {0x01, 0x20, 0x80}) {
                if (big && mask != 0x01) continue;
                std::string flipped = bytes;
                flipped[i] = static_cast<char>(flipped[i] ^ mask);
                check(flipped);
            }
        }
    }
    MESSAGE("variants packed back: ", checked);
    CHECK(checked > 1000);
}

TEST_CASE(
    "text archive pack: 300 generated archives round-trip, from dump and from any member order") {
    Generator g(20261130);
    std::size_t entries = 0, warned = 0;
    for (int round = 0; round < 300; ++round) {
        CAPTURE(round);
        std::vector<Item> model = g.archive();
        if (round % 60 == 0) model.push_back(chain(ta::k_max_depth - 1)); // the deepest allowed
        const std::string bytes = archive_bytes(model);
        Parsed p = parse(bytes);
        if (const Error* e = p.findings.first_error()) FAIL(e->describe(), "\n", bytes);
        REQUIRE(same(p.doc, model));
        warned += p.findings.warning_count() > 0;
        entries += model.size();
        // dump --json, then pack.
        CHECK(repack(bytes) == bytes);
        // The same archive from JSON written another way (members shuffled, other spacing).
        auto packed = ta::from_json(json_of(model, g.rng()));
        REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
        CHECK(packed->bytes == bytes);
    }
    CHECK(entries > 500);
    CHECK(warned > 10); // names cut at ": ", __PGSA in values, unknown types, duplicates
}

TEST_CASE(
    "text archive pack: hostile text is refused, reported by the reader, or read back exactly") {
    // Names, types, class names and values from pieces that break the grammar in every way
    // formats/README.md §2 allows. Whatever pack writes either reads back as the very tree the JSON
    // describes, or the reader reports an error (so `sparksave pack` refuses it): never a
    // silent misreading. And pack refuses exactly what the grammar cannot hold.
    std::mt19937 rng(77);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    static const char* const pieces[] = {"a",         " ",  ":",    ": ",     "__PGSA", "__PGSA ",
                                         ": __PGSA ", "{",  "}",    "},",     ",",      "\t",
                                         "\n",        "\r", "\xff", "Vector", " {"};
    auto text = [&](std::size_t max) {
        std::string s;
        for (std::size_t n = pick(max + 1); n > 0; --n) s += pieces[pick(std::size(pieces))];
        return s;
    };
    std::function<Item(std::size_t)> node = [&](std::size_t depth) {
        std::optional<std::string> name;
        if (pick(4) != 0) name = text(3);
        if (depth > 3 || pick(2) == 0)
            return attribute(name, pick(3) ? "string" : text(2), text(4));
        std::vector<Item> c;
        for (std::size_t i = pick(3); i > 0; --i) c.push_back(node(depth + 1));
        return klass(name, pick(3) ? "C" : text(2), std::move(c));
    };
    std::size_t refused = 0, reported = 0, exact = 0;
    for (int round = 0; round < 3000; ++round) {
        CAPTURE(round);
        std::vector<Item> model;
        for (std::size_t i = 1 + pick(2); i > 0; --i) model.push_back(node(0));
        const std::string json = json_of(model, rng);
        CAPTURE(json);
        bool must_refuse = false;
        for (const Item& e : model) must_refuse = must_refuse || unholdable(e, 0);
        auto packed = ta::from_json(json);
        CHECK(packed.has_value() == !must_refuse);
        if (!packed) {
            CHECK(packed.error().code == ErrorCode::bad_json);
            CHECK(packed.error().line >= 1);
            ++refused;
            continue;
        }
        Parsed p = parse(packed->bytes);
        CHECK(ta::summarize(packed->bytes).findings.has_errors() == p.findings.has_errors());
        if (p.findings.has_errors()) {
            ++reported;
            continue;
        }
        CHECK_MESSAGE(same(p.doc, model), packed->bytes);
        CHECK(repack(packed->bytes) == packed->bytes);
        ++exact;
    }
    MESSAGE("refused ", refused, ", reported by the reader ", reported, ", read back exactly ",
            exact);
    CHECK(refused > 100);
    CHECK(reported > 100);
    CHECK(exact > 100);
}

TEST_CASE("text archive pack: nesting up to the reader's limit, and one class more refused") {
    std::mt19937 rng(1);
    const std::string deepest = archive_bytes({chain(ta::k_max_depth)});
    CHECK_FALSE(parse(deepest).findings.has_errors());
    CHECK(repack(deepest) == deepest); // its dump nests 515 JSON levels
    auto over = ta::from_json(json_of({chain(ta::k_max_depth + 1)}, rng));
    REQUIRE_FALSE(over);
    CHECK(over.error().message.starts_with("expected at most 256 nested classes"));
    CHECK(over.error().path.starts_with("entries[0].children[0].children[0]"));
    CHECK(over.error().path.size() == std::string("entries[0]").size() + 12 * ta::k_max_depth);
    // Deeper than the JSON reader takes at all: a clean error too.
    auto deeper = ta::from_json(json_of({chain(600)}, rng));
    REQUIRE_FALSE(deeper);
    CHECK(deeper.error().message.find("nesting deeper than") != std::string::npos);
}

TEST_CASE(
    "text archive pack: JSON that is not a dump gets an error at its JSON path and line:column") {
    struct Case {
        const char* json;
        const char* path;
        const char* message_start;
    };
    const char* const entry = R"("entries": [{"name": "o", "class": "S", "children": [)";
    std::vector<Case> cases = {
        {"[]", "", "expected an object"},
        {R"({"version": 1})", "", "expected a member \"entries\""},
        {R"({"entries": []})", "", "expected a member \"version\""},
        {R"({"format": "spark_save", "version": 1, "entries": []})", "format",
         "expected \"text_archive\""},
        {R"({"version": 2, "entries": []})", "version",
         "expected 1 (the version line is 1.0.0) or null"},
        {R"({"version": "1", "entries": []})", "version", "expected 1"},
        {R"({"version": null, "entries": []})", "", "expected a member \"versionLine\""},
        {R"({"version": null, "versionLine": "1.0.0", "entries": []})", "version",
         "expected 1 (the version line is \"1.0.0\")"},
        {R"({"version": 1, "versionLine": "1.0.1", "entries": []})", "versionLine",
         "expected \"1.0.0\""},
        {R"({"version": null, "versionLine": "1.0\n", "entries": []})", "versionLine",
         "expected one line"},
        {R"({"version": 1, "entries": {}})", "entries", "expected an array of entries"},
        {R"({"version": 1, "entries": [], "extra": 0})", "extra", "unknown member \"extra\""},
        {R"({"version": 1, "entries": [], "version": 1})", "version", "expected each member once"},
        {R"({"version": 1, "entries": [3]})", "entries[0]", "expected an attribute"},
        {R"({"version": 1, "entries": [{"name": "a"}]})", "entries[0]",
         "expected \"type\" and \"value\""},
        {R"({"version": 1, "entries": [{"name": "a", "type": "int"}]})", "entries[0]",
         "expected a member \"value\""},
        {R"({"version": 1, "entries": [{"name": "a", "class": "C"}]})", "entries[0]",
         "expected a member \"children\""},
        {R"({"version": 1, "entries": [{"name": "a", "type": "int", "value": "1", "children": []}]})",
         "entries[0]", "expected an attribute (type and value) or a class"},
        {R"({"version": 1, "entries": [{"name": "a", "type": "int", "value": 1}]})",
         "entries[0].value", "expected a string or {\"base64\""},
        {R"({"version": 1, "entries": [{"name": null, "type": "int", "value": "1"}]})",
         "entries[0].name", "expected a string or {\"base64\""},
        {R"({"version": 1, "entries": [{"name": "a", "type": "int", "value": {"base64": "!!"}}]})",
         "entries[0].value.base64", "expected standard base64"},
        {R"({"version": 1, "entries": [{"name": "a", "type": "int", "value": {"base64": "QQ==", "x": 1}}]})",
         "entries[0].value", "expected a string or {\"base64\""},
        {R"({"version": 1, "entries": [{"name": "a", "class": "C", "children": {}}]})",
         "entries[0].children", "expected an array of items"},
        {R"({"version": 1, "entries": [{"type": "int", "value": "1"}]})", "entries[0]",
         "expected a member \"name\": every top-level entry"},
        {R"({"version": 1, "entries": [{"name": "o", "class": "S", "children": [{"name": "a", "type": "int", "value": "1", "nom": 1}]}]})",
         "entries[0].children[0].nom", "unknown member \"nom\""},
    };
    // What the grammar cannot hold (pack.cpp): refused at the member.
    const std::vector<std::pair<std::string, std::string>> unholdable_children = {
        {R"({"name": "v", "type": "string", "value": "two\nlines"})", "value"},
        {R"({"name": "v", "type": "string", "value": {"base64": "YQpi"}})", "value"},
        {R"({"name": "a\nb", "type": "int", "value": "1"})", "name"},
        {R"({"name": "\tv", "type": "int", "value": "1"})", "name"},
        {R"({"name": "__PGSA v", "type": "int", "value": "1"})", "name"},
        {R"({"name": "v: __PGSA int", "type": "int", "value": "1"})", "name"},
        {R"({"name": "v", "type": "in{t", "value": "1"})", "type"},
        {R"({"name": "v", "type": "int\n", "value": "1"})", "type"},
        {R"({"name": "v: w", "class": "C", "children": []})", "name"},
        {R"({"name": "v", "class": "C: D", "children": []})", "class"},
        {R"({"class": "C: D", "children": []})", "class"},
        {R"({"class": "\tC", "children": []})", "class"},
        {R"({"name": "v", "class": "C\n", "children": []})", "class"},
    };
    std::vector<std::string> texts, paths;
    for (const auto& [child, member] : unholdable_children) {
        texts.push_back(std::string(R"({"version": 1, )") + entry + child + "]}]}");
        paths.push_back("entries[0].children[0]." + member);
    }
    for (std::size_t i = 0; i < texts.size(); ++i)
        cases.push_back({texts[i].c_str(), paths[i].c_str(), "expected "});
    for (const Case& c : cases) {
        CAPTURE(c.json);
        auto packed = ta::from_json(c.json);
        REQUIRE_FALSE(packed);
        CHECK(packed.error().code == ErrorCode::bad_json);
        CHECK(packed.error().path == c.path);
        CHECK_MESSAGE(packed.error().message.starts_with(c.message_start), packed.error().message);
        CHECK(packed.error().line == 1);
        CHECK(packed.error().column >= 1);
    }
    // line:column point at the value in question.
    auto e =
        ta::from_json("{\"version\": 1,\n \"entries\": [\n  {\"name\": \"hp\", \"type\": \"int\",\n"
                      "   \"value\": true}]}");
    REQUIRE_FALSE(e);
    CHECK(e.error().describe() ==
          "at 4:13, in entries[0].value: expected a string or {\"base64\": \"...\"}, found true");
    // The line feed message says why.
    auto nl = ta::from_json(texts[0]);
    REQUIRE_FALSE(nl);
    CHECK(nl.error().message ==
          "expected one line, found a line feed in \"two\\nlines\": every line of an archive ends "
          "at a line feed and there is no escaping (the engine's writer corrupts a multi-line "
          "value this way)");
    // Invalid JSON: the reader's own error, with line:column.
    auto bad = ta::from_json("{\"version\": 1,\n \"entries\": [}");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().line == 2);
}

TEST_CASE("text archive pack: an edited JSON that breaks a rule packs, and the reader refuses it") {
    // What `sparksave pack` does after from_json: summarize() the bytes, refuse any error.
    auto first_error = [](const std::string& json) {
        auto packed = ta::from_json(json);
        REQUIRE_MESSAGE(packed, (packed ? "" : packed.error().describe()));
        Summary s = ta::summarize(packed->bytes);
        REQUIRE(s.findings.has_errors());
        const Error& e = *s.findings.first_error();
        return fmt::format("{} {}", code_name(e.code), e.path);
    };
    CHECK(first_error(R"({"version": 1, "entries": [{"name": "o", "class": "S", "children": [
              {"name": "visible", "type": "bool", "value": "yes"}]}]})") == "bad_value o.visible");
    CHECK(first_error(
              R"({"version": 1, "entries": [{"name": "hp", "type": "int", "value": "12abc"}]})") ==
          "bad_value hp");
    CHECK(first_error(
              R"({"version": 1, "entries": [{"name": "m", "class": "UnorderedMap", "children": [
              {"name": "nbElements", "type": "size_t", "value": "2"},
              {"name": "key0", "type": "string", "value": "a"},
              {"name": "value0", "type": "int", "value": "1"}]}]})") ==
          "count_mismatch m.nbElements");
    CHECK(first_error(R"({"version": null, "versionLine": "1.0.1", "entries": []})") ==
          "unsupported_version ");
    CHECK(first_error(
              R"({"version": 1, "entries": [{"name": "c", "class": "__PGSA", "children": []}]})") ==
          "bad_syntax c");
    CHECK(
        first_error(R"({"version": 1, "entries": [{"name": "v", "class": "Vector 2D", "children": [
              {"name": "x", "type": "float", "value": "1.000000"}]}]})") == "bad_value v.y");
    // Written as the engine's writer writes it; the reader says what the engine will make of it
    // (an error: it reads the entry as `a`, so `sparksave pack` refuses it).
    auto cut = ta::from_json(
        R"({"version": 1, "entries": [{"name": "a: b", "type": "int", "value": "1"}]})");
    REQUIRE(cut);
    CHECK(cut->bytes == "1.0.0\na: b: __PGSA int {1}\n");
    Summary s = ta::summarize(cut->bytes);
    REQUIRE(s.findings.has_errors());
    CHECK(s.findings.first_error()->code == ErrorCode::name_cut);
}

TEST_CASE("text archive pack: an archive above the reader's size limit is refused, not built") {
    std::string json = R"({"version": 1, "entries": [{"name": "big", "type": "string", "value": ")";
    json.append(ta::k_max_file_size - 8, 'x');
    json += "\"}]}";
    auto packed = ta::from_json(json);
    REQUIRE_FALSE(packed);
    CHECK(packed.error().path == "entries[0].value");
    CHECK(packed.error().message.starts_with("expected an archive of at most 67108864 bytes"));
}

namespace {

// The differences from a to b as "op path [old->new]" joined by " | "; every path of a node
// resolves back to that node (so it pastes into dump --select).
std::string diff_lines(const std::string& a, const std::string& b, DiffOptions o = {}) {
    Parsed pa = parse(a), pb = parse(b);
    // Repeated names are errors (the engine reads one of them) that diff still matches.
    auto only_duplicates = [](const Findings& f) {
        for (const auto& e : f.items())
            if (e.severity == Severity::error && e.code != ErrorCode::duplicate_key) return false;
        return true;
    };
    REQUIRE(only_duplicates(pa.findings));
    REQUIRE(only_duplicates(pb.findings));
    std::vector<std::string> out;
    auto r = diff(pa.doc, pb.doc, o, [&](const Change& c) {
        std::string line = std::string(op_name(c.op)) + " " + c.path.str();
        if (c.op == Change::Op::change)
            line += fmt::format(" {}->{}", pa.doc.value(c.old_node), pb.doc.value(c.new_node));
        if (c.op != Change::Op::order) {
            const bool in_b = c.op != Change::Op::remove;
            auto at = resolve(in_b ? pb.doc : pa.doc, c.path);
            REQUIRE_MESSAGE(at, c.path.str());
            CHECK_MESSAGE(*at == (in_b ? c.new_node : c.old_node), c.path.str());
        }
        out.push_back(line);
    });
    REQUIRE(r);
    std::string joined;
    for (const auto& line : out) joined += (joined.empty() ? "" : " | ") + line;
    return joined;
}

std::string with(std::string s, std::string_view from, std::string_view to) {
    const auto at = s.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    return s.replace(at, from.size(), to);
}

const char* const k_base = "1.0.0\n"
                           "title: __PGSA string {hello}\n"
                           "player: PositionComponent {\n"
                           "\tx: __PGSA float {42.500000},\n"
                           "\tinner: Inner {\n"
                           "\t\thp: __PGSA int {7},\n"
                           "\t\tname: __PGSA string {007}\n"
                           "\t},\n"
                           "\tv: Vector {\n"
                           "\t\t__PGSA int {1},\n"
                           "\t\t__PGSA int {2},\n"
                           "\t\t__PGSA int {3}\n"
                           "\t},\n"
                           "\tpos: Vector 2D {\n"
                           "\t\tx: __PGSA float {1.000000},\n"
                           "\t\ty: __PGSA float {2.000000}\n"
                           "\t}\n"
                           "}\n"
                           "count: __PGSA int {5}\n";

} // namespace

TEST_CASE("text archive diff: entries by name, class children by name, Vector items by position") {
    const std::string a = k_base;
    CHECK(diff_lines(a, a) == "");
    // Entries in another (hash) order: no difference unless asked.
    const std::string reordered =
        "1.0.0\ncount: __PGSA int {5}\n" + with(a.substr(6), "count: __PGSA int {5}\n", "");
    CHECK(diff_lines(a, reordered) == "");
    DiffOptions order;
    order.order = true;
    CHECK(diff_lines(a, reordered, order) == "order ");
    // A value inside a class, an entry removed and one added.
    CHECK(diff_lines(a, with(a, "hp: __PGSA int {7}", "hp: __PGSA int {8}")) ==
          "change player.inner.hp 7->8");
    CHECK(
        diff_lines(a, with(with(a, "title: __PGSA string {hello}\n", ""), "count: __PGSA int {5}\n",
                           "count: __PGSA int {5}\nsubtitle: __PGSA string {x}\n")) ==
        "remove title | add subtitle");
    // Vector items by position: a change, an item added, an item removed.
    CHECK(diff_lines(a, with(a, "__PGSA int {3}", "__PGSA int {4}")) == "change player.v[2] 3->4");
    CHECK(diff_lines(a, with(a, "__PGSA int {3}", "__PGSA int {3},\n\t\t__PGSA int {9}")) ==
          "add player.v[3]");
    CHECK(diff_lines(a, with(a, "\t\t__PGSA int {2},\n", "")) ==
          "change player.v[1] 2->3 | remove player.v[2]");
    // Numbers as numbers, within the epsilon; a string attribute is text.
    const std::string b = with(with(a, "{42.500000}", "{42.500400}"), "{007}", "{7}");
    CHECK(diff_lines(a, b) ==
          "change player.x 42.500000->42.500400 | change player.inner.name 007->7");
    DiffOptions eps;
    eps.epsilon = 0.001;
    CHECK(diff_lines(a, b, eps) == "change player.inner.name 007->7");
    CHECK(diff_lines(a, with(a, "int {5}", "int {+5}")) == "");
    // --ignore with * and **.
    DiffOptions ignore;
    ignore.ignore.push_back(*NodePath::parse("player.**"));
    CHECK(diff_lines(a, b, ignore) == "");
    DiffOptions ignore_one;
    ignore_one.ignore.push_back(*NodePath::parse("*.inner.name"));
    CHECK(diff_lines(a, b, ignore_one) == "change player.x 42.500000->42.500400");
}

TEST_CASE("text archive diff: class and type changes, repeated and missing names") {
    const std::string a = k_base;
    // A class name change and a type change are changes of the node.
    CHECK(diff_lines(a, with(a, "pos: Vector 2D {", "pos: Point {")) == "change player.pos ->");
    CHECK(diff_lines(a, with(a, "count: __PGSA int {5}", "count: __PGSA size_t {5}")) ==
          "change count 5->5");
    CHECK(diff_lines(a, with(a, "title: __PGSA string {hello}", "title: T {\n}")) ==
          "change title hello->");
    // Repeated top-level names (the engine keeps the last) match in order; the second goes by
    // index, so its path finds it.
    const std::string dup = "1.0.0\na: __PGSA int {1}\nb: __PGSA int {2}\na: __PGSA int {3}\n";
    CHECK(diff_lines(dup, with(dup, "{3}", "{4}")) == "change [2] 3->4");
    CHECK(diff_lines(dup, with(dup, "{1}", "{0}")) == "change a 1->0");
    // Unnamed children of a plain class go by position among the unnamed.
    const std::string unnamed =
        "1.0.0\nobj: S {\n\t__PGSA int {1},\n\tk: __PGSA int {0},\n\t__PGSA int {2}\n}\n";
    CHECK(diff_lines(unnamed, with(unnamed, "{2}", "{5}")) == "change obj[2] 2->5");
    CHECK(diff_lines(unnamed, with(unnamed, "{1}", "{5}")) == "change obj[0] 1->5");
}

TEST_CASE("text archive diff: another format is refused") {
    Parsed a = parse(k_base);
    const std::string save =
        test::read_bytes(test::testdata() / "spark_save/valid/v4-hierarchy.spark_save");
    Parsed b = spark_save::read(std::make_shared<const Source>(save));
    auto r = diff(a.doc, b.doc, {}, [](const Change&) { FAIL("no change expected"); });
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "cannot compare a text_archive with a spark_save");
}

#ifdef SPARKSAVE_BINARY
#include "sparksave/json_reader.hpp"

#include <cstdio>
#include <sys/wait.h>

TEST_CASE("text archive diff --json parses back, with the type and class name changes") {
    const auto dir = test::testdata() / "text_archive" / "hand" / "diff";
    const std::string cmd = std::string(SPARKSAVE_BINARY) + " diff --json " +
                            (dir / "system-before.sz").string() + " " +
                            (dir / "system-after.sz").string();
    std::string out;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = ::pclose(pipe);
    CHECK(WEXITSTATUS(status) == 1);
    json::Reader r(out);
    auto root = r.validate();
    REQUIRE_MESSAGE(root, out);
    REQUIRE(root->kind == json::Kind::array);
    std::vector<std::string> seen;
    r.elements(*root, [&](std::size_t, const json::Value& change) {
        json::Value op, path, old_type, new_type;
        REQUIRE(r.find(change, "op", op));
        REQUIRE(r.find(change, "path", path));
        std::string line = r.decoded(op) + " " + r.decoded(path);
        const bool typed = r.find(change, "oldType", old_type);
        CHECK(typed == r.find(change, "newType", new_type));
        if (typed) line += " " + r.decoded(old_type) + "->" + r.decoded(new_type);
        seen.push_back(line);
        return true;
    });
    CHECK(seen == std::vector<std::string>{"change player.hp", "change player.gold size_t->int",
                                           "change player.title", "change player.position.x",
                                           "change player.inventory[1]", "add player.inventory[3]",
                                           "change player.stats Stats->PlayerStats",
                                           "remove lastScene", "add quest"});
}
#endif
