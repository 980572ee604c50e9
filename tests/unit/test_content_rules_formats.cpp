// Content rules on the GMSV and text archive formats (sparksave/content_rules.hpp, issue 23
// "Formats"): each op on each, GMSV's binary components and its lack of custom state, the text
// archive's classes, `__PGSA` types and `path`, typed values, load-time errors with line:column,
// idempotence, and what no step names kept byte for byte.
#include "sparksave/content_rules.hpp"

#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/format.hpp"
#include "sparksave/node_path.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace sparksave;

namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// A rule set of one rule text for `format` (the header, then `body`), or the test fails.
RuleSet rule(const std::string& format, const std::string& body) {
    const RuleText file{
        "r.toml", "id = \"r\"\nsummary = \"s\"\nformat = \"" + format + "\"\n" + body, {}};
    auto set = RuleSet::parse({&file, 1});
    REQUIRE_MESSAGE(set.has_value(), set.error_or(Error{}).describe());
    return std::move(*set);
}

// The load error of such a rule text (bad_usage, FILE:LINE:COLUMN first).
std::string rule_error(const std::string& format, const std::string& body) {
    const RuleText file{
        "r.toml", "id = \"r\"\nsummary = \"s\"\nformat = \"" + format + "\"\n" + body, {}};
    auto set = RuleSet::parse({&file, 1});
    REQUIRE_FALSE(set.has_value());
    CHECK(set.error().code == ErrorCode::bad_usage);
    return set.error().message;
}

RulesApplied applied(const RuleSet& set, const std::string& save) {
    auto r = set.apply(bytes_of(save));
    REQUIRE_MESSAGE(r.has_value(), r.error_or(Error{}).describe());
    return std::move(*r);
}

Error apply_error(const RuleSet& set, const std::string& save) {
    auto r = set.apply(bytes_of(save));
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

// Applies the set twice: the first result changed, the second (on the first's bytes) not.
std::string twice(const RuleSet& set, const std::string& save) {
    const RulesApplied first = applied(set, save);
    CHECK(first.changed);
    const RulesApplied second = applied(set, first.bytes);
    CHECK_FALSE(second.changed);
    CHECK(second.bytes == first.bytes);
    return first.bytes;
}

Parsed read_as(std::string_view format, const std::string& bytes) {
    Parsed p = format_by_name(format)->read(std::make_shared<const Source>(bytes), {});
    REQUIRE_MESSAGE(p.findings.first_error() == nullptr, p.findings.first_error()->describe());
    return p;
}

// --- spark_save --------------------------------------------------------------------------------

TEST_CASE("content rules, spark_save: `type` writes the value as the engine writes that type; "
          "no `path`") {
    const std::string save =
        test::read_bytes(test::testdata() / "rules/saves/profile-1.spark_save");
    const RulesApplied r = applied(
        rule("spark_save", "[[step]]\nop = \"set-custom\"\nkey = \"k.f\"\nvalue = \"1\"\n"
                           "type = \"float\"\n"
                           "[[step]]\nop = \"set-custom\"\nkey = \"k.b\"\nvalue = \"true\"\n"
                           "type = \"bool\"\n"),
        save);
    const Parsed p = read_as("spark_save", r.bytes);
    CHECK(test::value_at(p.doc, "customState[\"k.f\"]") == "1.000000");
    CHECK(test::value_at(p.doc, "customState[\"k.b\"]") == "1");
    CHECK(p.doc.node(test::at(p.doc, "customState[\"k.f\"]")).type == ValueType::string);
    CHECK(rule_error("spark_save", "[[step]]\nop = \"drop-component\"\ncomponent = \"A\"\n"
                                   "reason = \"r\"\npath = \"x\"\n") ==
          "r.toml:8:8: step 1: drop-component: spark_save saves have no \"path\" (it scopes a "
          "step of a text_archive rule)");
}

// Random draws for the random tests, and random [[step]]s that name the components `named` and
// the properties `keys` only, so that what they do not name can be checked untouched.
class Draw {
  public:
    explicit Draw(unsigned seed) : rng_(seed) {}
    std::string pick(const std::vector<std::string>& from) {
        return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng_)];
    }
    bool chance(int percent) { return std::uniform_int_distribution<int>(0, 99)(rng_) < percent; }
    // One to four steps; `paths`: a `path` some component steps get; `drops`: set when a step
    // drops a component.
    std::string steps(const std::vector<std::string>& named, const std::vector<std::string>& keys,
                      const std::vector<std::string>& paths, bool& drops) {
        std::string out;
        for (int i = std::uniform_int_distribution<int>(1, 4)(rng_); i > 0; --i) {
            const std::string c = pick(named), d = pick(named), p = pick(keys), q = pick(keys);
            const std::string head =
                "[[step]]\ncomponent = \"" + c + "\"\n" +
                (!paths.empty() && chance(20) ? "path = \"" + pick(paths) + "\"\n" : "");
            const std::string prop = head + "property = \"" + p + "\"\n";
            switch (std::uniform_int_distribution<int>(0, 6)(rng_)) {
            case 0:
                out += p == q ? prop + "op = \"drop-property\"\nreason = \"r\"\n"
                              : head + "op = \"rename-property\"\nfrom = \"" + p + "\"\nto = \"" +
                                    q + "\"\n";
                break;
            case 1:
                if (c != d)
                    out += "[[step]]\nop = \"" +
                           std::string(chance(50) ? "move-property\"\nproperty = \"" + p + "\"\n"
                                                  : "rename-component\"\n") +
                           "from = \"" + c + "\"\nto = \"" + d + "\"\n";
                break;
            case 2:
                out += prop + "op = \"" + (chance(50) ? "set-default" : "set-value") +
                       "\"\nvalue = \"" + pick({"1", "0", "2.5", "x", "true"}) + "\"\n" +
                       (chance(50) ? "type = \"" + pick({"string", "float", "bool"}) + "\"\n" : "");
                break;
            case 3:
                out += prop + "op = \"retype\"\nto = \"" + pick({"int", "float", "bool"}) + "\"\n";
                break;
            case 4:
                drops = true;
                out += head + "op = \"drop-component\"\nreason = \"r\"\n";
                break;
            default:
                out += prop + "op = \"map-values\"\nmap = { x = \"y\", \"1\" = \"2\", \"3\" = "
                              "\"4\" }\n";
                break;
            }
        }
        return out;
    }

  private:
    std::mt19937 rng_;
};

// Applies random rule bodies, counting what applied and what was refused (a refusal must name its
// node, a rule file that does not load must be a value that does not convert to its type).
struct RandomRuns {
    int applied = 0, refused = 0;
    std::optional<std::string> apply(const std::string& format, const std::string& body,
                                     const std::string& save) {
        if (body.empty()) return std::nullopt;
        const RuleText file{
            "r.toml", "id = \"r\"\nsummary = \"s\"\nformat = \"" + format + "\"\n" + body, {}};
        auto set = RuleSet::parse({&file, 1});
        if (!set) { // "x" as a float, "2.5" as a bool
            CHECK(set.error().message.find("to convert to") != std::string::npos);
            return std::nullopt;
        }
        auto r = set->apply(bytes_of(save));
        if (!r) {
            ++refused;
            CHECK(r.error().code == ErrorCode::bad_value);
            CHECK_FALSE(r.error().path.empty());
            return std::nullopt;
        }
        ++applied;
        return std::move(r->bytes);
    }
    void check() const {
        CHECK(applied > 50);
        CHECK(refused > 5);
    }
};

// --- GMSV --------------------------------------------------------------------------------------

// A v3 GMSV save packed from the `entities` of its JSON dump.
std::string gmsv_save(const std::string& entities) {
    auto packed = format_json(FormatId::gmsv)
                      .from_json(R"({"format": "gmsv", "version": 3, "timestamp": {"binary": )"
                                 R"("5250041986427387904"}, "entities": [)" +
                                 entities + "]}");
    REQUIRE_MESSAGE(packed.has_value(), packed.error_or(Error{}).describe());
    return std::move(packed->bytes);
}

const std::string k_guid0 = R"("id": "00112233-4455-6677-8899-aabbccddeeff")";
const std::string k_guid1 = R"("id": "0f8fad5b-d9cb-469f-a165-70867728950e")";

// The two-entity save most GMSV cases start from: JSON data written as a game would, spaces
// included, and a binary Position on the second entity.
std::string gmsv_world() {
    return gmsv_save(
        "{" + k_guid0 +
        R"(, "components": [)"
        R"({"type": 1, "name": "Position", "json": { "X": 42.5, "Y": 1E3 }},)"
        R"({"type": 2, "name": "Health", "json": {"Current": 75, "Max":100, "Tag": "Caf\u00e9"}})"
        "]}, {" +
        k_guid1 +
        R"(, "components": [)"
        R"({"type": 1, "name": "Position", "hex": "00002a4200008ac1"},)"
        R"({"type": 2, "name": "Health", "json": {"Current":0.1,"Max":1}}]})");
}

// The data of a GMSV component (a node path), as the file holds it.
std::string data_at(const std::string& save, const char* path) {
    const Parsed p = read_as("gmsv", save);
    return std::string(p.doc.value(test::at(p.doc, path)));
}

TEST_CASE("content rules, gmsv: property ops re-encode the data; untouched members keep their "
          "text") {
    const std::string save = gmsv_world();
    SUBCASE("retype int -> float, and a member no step names") {
        const std::string out =
            twice(rule("gmsv", "[[step]]\nop = \"retype\"\ncomponent = "
                               "\"Health\"\nproperty = \"Max\"\nto = \"float\"\n"),
                  save);
        CHECK(data_at(out, "entities[0].Health") ==
              R"({"Current":75,"Max":100.0,"Tag":"Caf\u00e9"})");
        CHECK(data_at(out, "entities[1].Health") == R"({"Current":0.1,"Max":1.0})");
        CHECK(data_at(out, "entities[0].Position") == R"({ "X": 42.5, "Y": 1E3 })");
    }
    SUBCASE("retype float -> int only when exact") {
        const RuleSet set = rule("gmsv", "[[step]]\nop = \"retype\"\ncomponent = \"Health\"\n"
                                         "property = \"Current\"\nto = \"int\"\n");
        const Error e = apply_error(set, save);
        CHECK(e.path == "entities[1].Health.Current");
        CHECK(e.message == "rule r step 1 (retype): expected a value that converts to an int, "
                           "found \"0.1\"");
    }
    SUBCASE("rename-property keeps the place; set-default adds a typed value last") {
        const std::string out =
            twice(rule("gmsv", "[[step]]\nop = \"rename-property\"\ncomponent = \"Health\"\n"
                               "from = \"Current\"\nto = \"Hp\"\n"
                               "[[step]]\nop = \"set-default\"\ncomponent = \"Health\"\n"
                               "property = \"Regen\"\nvalue = \"0.5\"\ntype = \"float\"\n"
                               "[[step]]\nop = \"set-default\"\ncomponent = \"Health\"\n"
                               "property = \"Name\"\nvalue = \"a \\\"b\\\"\"\n"),
                  save);
        CHECK(data_at(out, "entities[0].Health") ==
              R"({"Hp":75,"Max":100,"Tag":"Caf\u00e9","Regen":0.5,"Name":"a \"b\""})");
        CHECK(data_at(out, "entities[1].Health") ==
              R"({"Hp":0.1,"Max":1,"Regen":0.5,"Name":"a \"b\""})");
        CHECK(data_at(out, "entities[0].Position") == R"({ "X": 42.5, "Y": 1E3 })");
    }
    SUBCASE("set-value keeps a number a number; with a type it sets that type") {
        const std::string out =
            twice(rule("gmsv", "[[step]]\nop = \"set-value\"\ncomponent = \"Health\"\n"
                               "property = \"Max\"\nvalue = \"250\"\n"
                               "[[step]]\nop = \"set-value\"\ncomponent = \"Health\"\n"
                               "property = \"Tag\"\nvalue = \"true\"\ntype = \"bool\"\n"
                               "[[step]]\nop = \"set-value\"\ncomponent = \"Health\"\n"
                               "property = \"Current\"\nvalue = \"2\"\n"),
                  save);
        CHECK(data_at(out, "entities[0].Health") == R"({"Current":2,"Max":250,"Tag":true})");
        CHECK(data_at(out, "entities[1].Health") == R"({"Current":2.0,"Max":250,"Tag":true})");
        const Error e = apply_error(rule("gmsv", "[[step]]\nop = \"set-value\"\ncomponent = "
                                                 "\"Health\"\nproperty = \"Max\"\nvalue = \"x\"\n"),
                                    save);
        CHECK(e.path == "entities[0].Health.Max");
        CHECK(e.message == "rule r step 1 (set-value): expected a value that converts to an int "
                           "(the property's type), found \"x\"");
    }
    SUBCASE("map-values, drop-property") {
        const std::string out =
            twice(rule("gmsv", "[[step]]\nop = \"map-values\"\ncomponent = \"Health\"\n"
                               "property = \"Tag\"\nmap = { \"Café\" = \"cafe\" }\n"
                               "[[step]]\nop = \"drop-property\"\ncomponent = \"Health\"\n"
                               "property = \"Current\"\nreason = \"derived\"\n"),
                  save);
        CHECK(data_at(out, "entities[0].Health") == R"({"Max":100,"Tag":"cafe"})");
        CHECK(data_at(out, "entities[1].Health") == R"({"Max":1})");
    }
    SUBCASE("move-property between JSON components of one entity") {
        const std::string one = gmsv_save(
            "{" + k_guid0 +
            R"(, "components": [{"type": 1, "name": "Position", "json": {"X":1,"Y":2,"Z": 3 }},)"
            R"({"type": 9, "name": "type9", "json": {"A":"x"}}]})");
        const std::string out =
            twice(rule("gmsv", "[[step]]\nop = \"move-property\"\nproperty = \"Z\"\n"
                               "from = \"Position\"\nto = \"type9\"\n"),
                  one);
        CHECK(data_at(out, "entities[0].Position") == R"({"X":1,"Y":2})");
        CHECK(data_at(out, "entities[0].type9") == R"({"A":"x","Z":3})");
    }
}

TEST_CASE("content rules, gmsv: nested members and escaped keys are kept verbatim") {
    const std::string save =
        gmsv_save("{" + k_guid0 +
                  R"(, "components": [{"type": 3, "name": "Inventory", "json": )"
                  R"({"\u0049tems" : [1, 2,3], "Bag": { "Slots": [ ] }, "Count": 3}}]})");
    const std::string out = twice(rule("gmsv", "[[step]]\nop = \"set-value\"\ncomponent = "
                                               "\"Inventory\"\nproperty = \"Count\"\n"
                                               "value = \"4\"\n"),
                                  save);
    CHECK(data_at(out, "entities[0].Inventory") ==
          R"({"\u0049tems":[1, 2,3],"Bag":{ "Slots": [ ] },"Count":4})");
    // A nested member is a property a rename, move or drop takes whole.
    const std::string moved =
        twice(rule("gmsv", "[[step]]\nop = \"rename-property\"\ncomponent = \"Inventory\"\n"
                           "from = \"Bag\"\nto = \"Pack\"\n"
                           "[[step]]\nop = \"drop-property\"\ncomponent = \"Inventory\"\n"
                           "property = \"Items\"\nreason = \"r\"\n"),
              save);
    CHECK(data_at(moved, "entities[0].Inventory") == R"({"Pack":{ "Slots": [ ] },"Count":3})");
    const Error set =
        apply_error(rule("gmsv", "[[step]]\nop = \"set-value\"\ncomponent = "
                                 "\"Inventory\"\nproperty = \"Bag\"\nvalue = \"1\"\n"),
                    save);
    CHECK(set.path == "entities[0].Inventory.Bag");
    // A rename onto a nested member's name is a conflict, not a second key.
    const Error e = apply_error(rule("gmsv", "[[step]]\nop = \"rename-property\"\ncomponent = "
                                             "\"Inventory\"\nfrom = \"Count\"\nto = \"Bag\"\n"),
                                save);
    CHECK(e.path == "entities[0].Inventory.Bag");
}

TEST_CASE("content rules, gmsv: component ops work on both forms, property ops refuse binary") {
    const std::string save = gmsv_world();
    SUBCASE("rename-component changes the type id; the data stays byte for byte") {
        const std::string out =
            twice(rule("gmsv", "[[step]]\nop = \"rename-component\"\nfrom = \"Position\"\n"
                               "to = \"type12\"\n"),
                  save);
        const Parsed p = read_as("gmsv", out);
        CHECK(p.doc.value(test::at(p.doc, "entities[0].type12")) == R"({ "X": 42.5, "Y": 1E3 })");
        CHECK(p.doc.node(test::at(p.doc, "entities[1].type12")).kind == NodeKind::bytes);
        CHECK(out.size() == save.size());
    }
    SUBCASE("drop-component") {
        const RulesApplied r =
            applied(rule("gmsv", "[[step]]\nop = \"drop-component\"\ncomponent = \"Position\"\n"
                                 "reason = \"moved to the scene\"\n"),
                    save);
        REQUIRE(r.steps.size() == 1);
        CHECK(r.steps[0].entities == 2);
        CHECK(r.steps[0].components == 2);
        const Parsed p = read_as("gmsv", r.bytes);
        CHECK(p.doc.child_count(test::at(p.doc, "entities[1]")) == 1);
    }
    SUBCASE("a property op on a binary component is an error with its path") {
        const Error e = apply_error(rule("gmsv", "[[step]]\nop = \"drop-property\"\ncomponent = "
                                                 "\"Position\"\nproperty = \"X\"\n"
                                                 "reason = \"r\"\n"),
                                    save);
        CHECK(e.code == ErrorCode::bad_value);
        CHECK(e.path == "entities[1].Position");
        CHECK(e.message == "rule r step 1 (drop-property): \"Position\" is binary-encoded: its "
                           "properties cannot be edited");
        const Error m = apply_error(rule("gmsv", "[[step]]\nop = \"move-property\"\nproperty = "
                                                 "\"Max\"\nfrom = \"Health\"\nto = \"Position\"\n"),
                                    save);
        CHECK(m.path == "entities[1].Position");
    }
}

TEST_CASE("content rules, gmsv: a v1 save is migrated to v3 first, then ruled") {
    auto packed = format_json(FormatId::gmsv)
                      .from_json(R"({"format": "gmsv", "version": 1, "timestamp": {"binary": )"
                                 R"("5250041986427387904"}, "entities": [{)" +
                                 k_guid0 +
                                 R"(, "components": [{"type": 1, "name": "Position", "json": )"
                                 R"({"X": 3, "Y": 4}}, {"type": 2, "name": "Health", "json": )"
                                 R"({"Current": 7}}]}]})");
    REQUIRE_MESSAGE(packed.has_value(), packed.error_or(Error{}).describe());
    const RulesApplied r =
        applied(rule("gmsv", "[[step]]\nop = \"set-default\"\ncomponent = \"Inventory\"\n"
                             "property = \"Capacity\"\nvalue = \"8\"\ntype = \"int\"\n"),
                packed->bytes);
    CHECK(r.from_version == 1);
    CHECK(r.migration_notes.size() >= 2);
    // The migrations' Inventory ({"ItemIds":[]}) gets the default; their Position stays as they
    // wrote it.
    CHECK(data_at(r.bytes, "entities[0].Inventory") == R"({"ItemIds":[],"Capacity":8})");
    CHECK(data_at(r.bytes, "entities[0].Position") == R"({"X": 3.0, "Y": 4.0})");
    CHECK(data_at(r.bytes, "entities[0].Health") == R"({"Current": 7})");
}

TEST_CASE("content rules, gmsv: a rule that changes nothing gives the save back as it is") {
    const std::string save = gmsv_world();
    const RulesApplied r =
        applied(rule("gmsv", "[[step]]\nop = \"rename-property\"\ncomponent = \"Health\"\n"
                             "from = \"Absent\"\nto = \"B\"\n"
                             "[[step]]\nop = \"set-default\"\ncomponent = \"Stamina\"\n"
                             "property = \"P\"\nvalue = \"1\"\n"),
                save);
    CHECK_FALSE(r.changed);
    CHECK(r.bytes == save);
}

TEST_CASE("content rules, gmsv: what a rule file cannot say, at load, with line:column") {
    CHECK(rule_error("gmsv", "module = { key = \"k\", from = 1, to = 2 }\n") ==
          "r.toml:4:10: the rule: GMSV saves have no custom state to hold a module's version: "
          "leave \"module\" out");
    CHECK(rule_error("gmsv", "[[step]]\nop = \"set-custom\"\nkey = \"k\"\nvalue = \"v\"\n") ==
          "r.toml:5:6: step 1: set-custom: GMSV saves have no custom state");
    CHECK(rule_error("gmsv", "[[step]]\nop = \"drop-custom\"\nkey = \"k\"\nreason = \"r\"\n") ==
          "r.toml:5:6: step 1: drop-custom: GMSV saves have no custom state");
    CHECK(rule_error("gmsv", "[[step]]\nop = \"rename-component\"\nfrom = \"Health\"\n"
                             "to = \"HealthComponent\"\n") ==
          "r.toml:7:6: step 1: rename-component: cannot rename to \"HealthComponent\": GMSV "
          "writes a component's type id, so its name must be Position, Health, Inventory, "
          "StableId or type<N> for an unregistered id N");
    CHECK(rule_error("gmsv", "[[step]]\nop = \"rename-component\"\nfrom = \"Health\"\n"
                             "to = \"type2\"\n")
              .starts_with("r.toml:7:6: step 1: rename-component: cannot rename to \"type2\""));
    CHECK(rule_error("gmsv", "[[step]]\nop = \"set-value\"\ncomponent = \"Health\"\n"
                             "property = \"Max\"\nvalue = \"x\"\ntype = \"int\"\n") ==
          "r.toml:8:9: step 1: set-value: expected \"value\" to convert to an int, found \"x\"");
    CHECK(rule_error("gmsv", "[[step]]\nop = \"set-value\"\ncomponent = \"Health\"\n"
                             "property = \"Max\"\nvalue = \"1\"\ntype = \"double\"\n") ==
          "r.toml:9:8: step 1: set-value: expected \"type\" to be string, int, float or bool, "
          "found \"double\"");
    CHECK(rule_error("gmsv", "[[step]]\nop = \"drop-component\"\ncomponent = \"Health\"\n"
                             "reason = \"r\"\npath = \"entities[0]\"\n") ==
          "r.toml:8:8: step 1: drop-component: GMSV saves have no \"path\" (it scopes a step of a "
          "text_archive rule)");
}

// The raw text of every member named `key` of the components of entity `entity`, in order.
std::vector<std::string> member_texts(const std::string& save, std::size_t entity,
                                      std::string_view key) {
    const Parsed p = read_as("gmsv", save);
    std::vector<std::string> out;
    const NodeId at = test::at(p.doc, ("entities[" + std::to_string(entity) + "]").c_str());
    for (NodeId c : p.doc.children(at))
        for (NodeId m : p.doc.children(c))
            if (p.doc.name(m) == key)
                out.emplace_back(save.substr(p.doc.node(m).span.offset, p.doc.node(m).span.length));
    return out;
}

TEST_CASE("content rules, gmsv: random saves x random steps: the result reads back, and what no "
          "step names keeps its text") {
    Draw draw(2303);
    // Steps name Position, Health, Inventory and the members A, B, C; never type9 or D.
    const std::vector<std::string> named = {"Position", "Health", "Inventory"};
    const std::vector<std::string> json_values = {
        "1",    "-0.5", "1E3",    R"("x")",         R"("Caf\u00e9")",
        "true", "null", "[1, 2]", R"({ "n": {} })", "0.1"};
    const std::vector<std::string> guids = {k_guid0, k_guid1};
    RandomRuns runs;
    for (int round = 0; round < 200; ++round) {
        std::string entities;
        for (const std::string& guid : guids) {
            std::string components;
            for (const auto& [type_id, type] : {std::pair<int, std::string_view>{1, "Position"},
                                                {2, "Health"},
                                                {3, "Inventory"},
                                                {9, "type9"}}) {
                if (!draw.chance(70)) continue;
                std::string c = R"({"type": )" + std::to_string(type_id) + R"(, "name": ")" +
                                std::string(type) + "\", ";
                if (draw.chance(20)) {
                    c += R"("hex": "00ff")";
                } else {
                    std::string members;
                    for (const char* k : {"A", "B", "C", "D"})
                        if (draw.chance(60))
                            members += std::string(members.empty()   ? ""
                                                   : draw.chance(50) ? ", "
                                                                     : ",") +
                                       "\"" + k + "\"" + (draw.chance(30) ? " : " : ":") +
                                       draw.pick(json_values);
                    c += R"("json": {)" + members + "}";
                }
                components += (components.empty() ? "" : ", ") + c + "}";
            }
            entities += (entities.empty() ? "{" : ", {") + guid + R"(, "components": [)" +
                        components + "]}";
        }
        const std::string save = gmsv_save(entities);
        bool drops = false;
        const auto out = runs.apply("gmsv", draw.steps(named, {"A", "B", "C"}, {}, drops), save);
        if (!out) continue;
        const Parsed in = read_as("gmsv", save), result = read_as("gmsv", *out);
        for (std::size_t e = 0; e < guids.size(); ++e) {
            const std::string type9 = "entities[" + std::to_string(e) + "].type9";
            if (resolve(in.doc, *NodePath::parse(type9)))
                CHECK(in.doc.value(test::at(in.doc, type9.c_str())) ==
                      result.doc.value(test::at(result.doc, type9.c_str())));
            if (!drops) CHECK(member_texts(save, e, "D") == member_texts(*out, e, "D"));
        }
    }
    runs.check();
}

// --- Text archive ------------------------------------------------------------------------------

const std::string k_archive = "1.0.0\n"
                              "profile.version: __PGSA int {1}\n"
                              "player: Player {\n"
                              "\tname: __PGSA string {bob},\n"
                              "\tstats: Stats {\n"
                              "\t\thp: __PGSA int {100},\n"
                              "\t\tlegacy: __PGSA bool {true}\n"
                              "\t},\n"
                              "\tbag: Inventory {\n"
                              "\t\tgold: __PGSA size_t {5}\n"
                              "\t},\n"
                              "\tteam: __PGSA string {red}\n"
                              "}\n"
                              "world: World {\n"
                              "\tboss: Stats {\n"
                              "\t\thp: __PGSA int {900}\n"
                              "\t}\n"
                              "}\n";

// The archive with each `from` replaced by its `to`, in order (each must be there).
std::string edited(std::initializer_list<std::pair<std::string, std::string>> edits) {
    std::string out = k_archive;
    for (const auto& [from, to] : edits) {
        const std::size_t at = out.find(from);
        REQUIRE_MESSAGE(at != std::string::npos, from);
        out.replace(at, from.size(), to);
    }
    return out;
}

const std::string k_module = "module = { key = \"profile.version\", from = 1, to = 2 }\n";

TEST_CASE("content rules, text_archive: the module key is a top-level attribute, kept int") {
    const std::string out = twice(rule("text_archive", k_module), k_archive);
    CHECK(out == edited({{"int {1}", "int {2}"}}));
    const RulesApplied again = applied(rule("text_archive", k_module), out);
    REQUIRE(again.left_alone.size() == 1);
    CHECK(again.left_alone[0].at_newest);
}

TEST_CASE("content rules, text_archive: retype changes the __PGSA type and the text as the "
          "engine writes it") {
    const std::string out =
        twice(rule("text_archive", k_module + "[[step]]\nop = \"retype\"\n"
                                              "component = \"Stats\"\nproperty = "
                                              "\"hp\"\nto = \"float\"\n"),
              k_archive);
    CHECK(out == edited({{"int {1}", "int {2}"},
                         {"hp: __PGSA int {100}", "hp: __PGSA float {100.000000}"},
                         {"hp: __PGSA int {900}", "hp: __PGSA float {900.000000}"}}));
    // Back to int: exact floats only.
    const std::string back = twice(rule("text_archive", "[[step]]\nop = \"retype\"\n"
                                                        "component = \"Stats\"\nproperty = "
                                                        "\"hp\"\nto = \"int\"\n"),
                                   out);
    CHECK(back == edited({{"int {1}", "int {2}"}}));
    const Error e =
        apply_error(rule("text_archive", "[[step]]\nop = \"retype\"\ncomponent = \"Player\"\n"
                                         "property = \"name\"\nto = \"int\"\n"),
                    k_archive);
    CHECK(e.path == "player.name");
    CHECK(e.message ==
          "rule r step 1 (retype): expected a value that converts to an int, found \"bob\"");
    const std::string flag = twice(rule("text_archive", "[[step]]\nop = \"retype\"\n"
                                                        "component = \"Stats\"\nproperty = "
                                                        "\"legacy\"\nto = \"int\"\n"),
                                   k_archive);
    CHECK(flag.find("legacy: __PGSA int {1}") != std::string::npos);
}

TEST_CASE("content rules, text_archive: `path` scopes a step to a subtree") {
    const std::string body = "[[step]]\nop = \"retype\"\ncomponent = \"Stats\"\nproperty = "
                             "\"hp\"\nto = \"float\"\npath = \"world.boss\"\n";
    const RulesApplied r = applied(rule("text_archive", body), k_archive);
    CHECK(r.bytes == edited({{"hp: __PGSA int {900}", "hp: __PGSA float {900.000000}"}}));
    REQUIRE(r.steps.size() == 1);
    CHECK(r.steps[0].entities == 1);
    CHECK(r.steps[0].components == 1);
    // A path this save does not have: nothing to do.
    const RulesApplied none =
        applied(rule("text_archive", "[[step]]\nop = \"drop-component\"\ncomponent = \"Stats\"\n"
                                     "reason = \"r\"\npath = \"nobody.stats\"\n"),
                k_archive);
    CHECK_FALSE(none.changed);
    CHECK(rule_error("text_archive", body + "path = \"x\"\n").starts_with("r.toml:"));
    CHECK(rule_error("text_archive",
                     "[[step]]\nop = \"drop-component\"\ncomponent = \"Stats\"\nreason = \"r\"\n"
                     "path = \"player[\"\n")
              .starts_with("r.toml:8:8: step 1: drop-component: expected \"path\" to be a node "
                           "path, found \"player[\": "));
    CHECK(rule_error("text_archive",
                     "[[step]]\nop = \"drop-component\"\ncomponent = \"Stats\"\nreason = \"r\"\n"
                     "path = \"player.*\"\n") ==
          "r.toml:8:8: step 1: drop-component: expected \"path\" to name one node, found the "
          "pattern \"player.*\"");
}

TEST_CASE("content rules, text_archive: class ops rename the class, not the entry") {
    const std::string out =
        twice(rule("text_archive", "[[step]]\nop = \"rename-component\"\nfrom = \"Stats\"\n"
                                   "to = \"Vitals\"\n"
                                   "[[step]]\nop = \"drop-component\"\ncomponent = \"World\"\n"
                                   "reason = \"rebuilt on load\"\n"),
              k_archive);
    const std::string expected = edited({{"stats: Stats {", "stats: Vitals {"}});
    CHECK(out == expected.substr(0, expected.find("world: World")));
    CHECK(rule_error("text_archive", "[[step]]\nop = \"rename-property\"\ncomponent = \"Stats\"\n"
                                     "from = \"hp\"\nto = \"a: __PGSA b\"\n") ==
          "r.toml:8:6: step 1: rename-property: cannot name a value \"a: __PGSA b\": an attribute "
          "name holding `: __PGSA ` (the reader ends the name at the first one)");
    CHECK(rule_error("text_archive", "[[step]]\nop = \"set-custom\"\nkey = \"k\"\n"
                                     "value = \"two\\nlines\"\n") ==
          "r.toml:7:9: step 1: set-custom: cannot write the value \"two\\nlines\": a value with a "
          "line feed (the engine's writer breaks it, formats/README.md §2)");
    CHECK(rule_error("text_archive", "[[step]]\nop = \"rename-component\"\nfrom = \"Stats\"\n"
                                     "to = \"a: b\"\n")
              .starts_with("r.toml:7:6: step 1: rename-component: cannot rename to \"a: b\": "));
}

TEST_CASE("content rules, text_archive: attribute ops, move-property between siblings, typed "
          "values") {
    const std::string out =
        twice(rule("text_archive",
                   "[[step]]\nop = \"rename-property\"\ncomponent = \"Player\"\nfrom = \"name\"\n"
                   "to = \"nick\"\n"
                   "[[step]]\nop = \"move-property\"\nproperty = \"gold\"\nfrom = \"Inventory\"\n"
                   "to = \"Stats\"\n"
                   "[[step]]\nop = \"set-default\"\ncomponent = \"Stats\"\nproperty = \"regen\"\n"
                   "value = \"0\"\ntype = \"float\"\n"
                   "[[step]]\nop = \"set-value\"\ncomponent = \"Stats\"\nproperty = \"legacy\"\n"
                   "value = \"0\"\n"
                   "[[step]]\nop = \"map-values\"\ncomponent = \"Player\"\nproperty = \"team\"\n"
                   "map = { red = \"1\" }\n"
                   "[[step]]\nop = \"drop-property\"\ncomponent = \"Stats\"\nproperty = \"hp\"\n"
                   "reason = \"derived\"\npath = \"world\"\n"),
              k_archive);
    CHECK(out == "1.0.0\n"
                 "profile.version: __PGSA int {1}\n"
                 "player: Player {\n"
                 "\tnick: __PGSA string {bob},\n"
                 "\tstats: Stats {\n"
                 "\t\thp: __PGSA int {100},\n"
                 "\t\tlegacy: __PGSA bool {false},\n"
                 "\t\tgold: __PGSA size_t {5},\n"
                 "\t\tregen: __PGSA float {0.000000}\n"
                 "\t},\n"
                 "\tbag: Inventory {\n"
                 "\t},\n"
                 "\tteam: __PGSA string {1}\n"
                 "}\n"
                 "world: World {\n"
                 "\tboss: Stats {\n"
                 "\t\tregen: __PGSA float {0.000000},\n"
                 "\t\tlegacy: __PGSA string {0}\n" // set-value adds a missing value, a string
                 "\t}\n"
                 "}\n");
    const Error e = apply_error(rule("text_archive", "[[step]]\nop = \"move-property\"\n"
                                                     "property = \"hp\"\nfrom = \"Stats\"\n"
                                                     "to = \"Inventory\"\n"),
                                k_archive);
    CHECK(e.path == "world.boss.hp");
    CHECK(e.message == "rule r step 1 (move-property): cannot move \"hp\" from \"Stats\" to "
                       "\"Inventory\": its parent has no \"Inventory\"");
}

TEST_CASE("content rules, text_archive: custom state is the top-level attributes") {
    const std::string out = twice(
        rule("text_archive", k_module + "[[step]]\nop = \"set-custom\"\nkey = \"profile.flag\"\n"
                                        "value = \"1\"\ntype = \"bool\"\n"),
        k_archive);
    CHECK(out == edited({{"int {1}", "int {2}"}}) + "profile.flag: __PGSA bool {true}\n");
    CHECK(rule_error("text_archive", "[[step]]\nop = \"set-custom\"\nkey = \"k\"\n"
                                     "value = \"yes\"\ntype = \"bool\"\n") ==
          "r.toml:7:9: step 1: set-custom: expected \"value\" to convert to a bool (true/false), "
          "found \"yes\"");
    const std::string renamed = twice(
        rule("text_archive", k_module + "[[step]]\nop = \"set-custom\"\nkey = \"profile.name\"\n"
                                        "value = \"bob\"\n"
                                        "[[step]]\nop = \"drop-custom\"\nkey = \"gone\"\n"
                                        "reason = \"r\"\n"),
        k_archive);
    CHECK(renamed == edited({{"int {1}", "int {2}"}}) + "profile.name: __PGSA string {bob}\n");
    const Error e = apply_error(rule("text_archive", "[[step]]\nop = \"rename-custom\"\n"
                                                     "from = \"profile.version\"\nto = "
                                                     "\"player\"\n"),
                                k_archive);
    CHECK(e.path == "player");
}

TEST_CASE("content rules, text_archive: a rule that changes nothing keeps the file as it is") {
    // A file the engine's writer would write otherwise (no comma after a child: a note): left as
    // it is when no step changes it.
    const std::string loose = "1.0.0\nplayer: Player {\n\thp: __PGSA int {1}\n\tmp: __PGSA int "
                              "{2}\n}\n";
    const RulesApplied r =
        applied(rule("text_archive", "[[step]]\nop = \"drop-property\"\ncomponent = \"Player\"\n"
                                     "property = \"xp\"\nreason = \"r\"\n"),
                loose);
    CHECK_FALSE(r.changed);
    CHECK(r.bytes == loose);
}

// The lines of `text` that hold `needle`, in order, without the comma a sibling after them
// gives them.
std::vector<std::string> lines_with(const std::string& text, std::string_view needle) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string line = text.substr(at, end - at);
        if (line.ends_with(',')) line.pop_back();
        if (line.find(needle) != std::string::npos) out.push_back(line);
        at = end + 1;
    }
    return out;
}

TEST_CASE("content rules, text_archive: random archives x random steps: the result reads back, "
          "and what no step names keeps its text") {
    Draw draw(2304);
    // Steps name the classes A, B, C and the attributes a, b, c; never the class Z or `z`.
    const std::vector<std::string> classes = {"A", "B", "C", "Z"};
    const std::vector<std::string> typed_values = {
        "int {3}",    "int {-1}",   "float {2.500000}", "bool {true}",
        "string {x}", "size_t {7}", "string {}",        "double {1.000000}"};
    std::function<std::string(std::size_t)> body = [&](std::size_t depth) {
        std::string out = draw.pick(classes) + " {\n";
        std::vector<std::string> children;
        for (const char* a : {"a", "b", "c", "z"})
            if (draw.chance(50))
                children.push_back(std::string(depth, '\t') + a + ": __PGSA " +
                                   draw.pick(typed_values));
        if (depth < 3)
            for (const char* name : {"p", "q"})
                if (draw.chance(40))
                    children.push_back(std::string(depth, '\t') + name + ": " + body(depth + 1));
        for (std::size_t i = 0; i < children.size(); ++i)
            out += children[i] + (i + 1 < children.size() ? ",\n" : "\n");
        return out + std::string(depth - 1, '\t') + "}";
    };
    RandomRuns runs;
    for (int round = 0; round < 200; ++round) {
        std::string archive = "1.0.0\nversion: __PGSA int {1}\n";
        for (const char* entry : {"e1", "e2", "e3"})
            if (draw.chance(80)) archive += std::string(entry) + ": " + body(1) + "\n";
        bool drops = false;
        const auto out = runs.apply(
            "text_archive",
            draw.steps({"A", "B", "C"}, {"a", "b", "c"}, {"e1", "e2.p", "e3.q.p", "e1.x"}, drops),
            archive);
        if (!out) continue;
        read_as("text_archive", *out); // no error
        CHECK(lines_with(*out, "version: __PGSA int {1}").size() == 1);
        if (!drops) {
            CHECK(lines_with(*out, "z: __PGSA") == lines_with(archive, "z: __PGSA"));
            CHECK(lines_with(*out, "Z {").size() == lines_with(archive, "Z {").size());
        }
    }
    runs.check();
}

TEST_CASE("content rules, text_archive: the corpus and the engine's own files keep every byte "
          "no step changes") {
    std::vector<std::filesystem::path> files =
        test::corpus_files(test::testdata() / "text_archive", "valid", ".sz");
    for (const char* real : {"pg-writer-sample.sz", "pg-writer-edge-cases.sz"})
        files.push_back(test::testdata() / "text_archive/real" / real);
    const RuleSet set = rule("text_archive", "[[step]]\nop = \"set-custom\"\nkey = "
                                             "\"sparksave.mark\"\nvalue = \"1\"\ntype = \"int\"\n");
    int checked = 0;
    for (const auto& path : files) {
        CAPTURE(path);
        const std::string bytes = test::read_bytes(path);
        const Parsed p =
            format_by_name("text_archive")->read(std::make_shared<const Source>(bytes), {});
        if (p.findings.first_error()) continue;
        auto written = format_by_name("text_archive")->write(p.doc);
        REQUIRE(written.has_value());
        if (*written != bytes) continue; // a file the engine would write otherwise (notes)
        const RulesApplied r = applied(set, bytes);
        CHECK(r.bytes == bytes + "sparksave.mark: __PGSA int {1}\n");
        ++checked;
    }
    CHECK(checked >= 5);
}

} // namespace
