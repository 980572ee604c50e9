// The three-way structural merge (sparksave/merge.hpp): what is taken, what is a conflict, and
// that the merged bytes read back as what was merged.
#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/merge.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace sparksave;

namespace {

// A save of testdata, as bytes, and variants of it: its JSON dump with edits, packed.
struct Saves {
    FormatId format;
    std::string base, json;

    explicit Saves(const char* path) {
        base = test::read_bytes(test::testdata() / path);
        const Parsed p = read(base);
        format = p.doc.format();
        format_json(format).to_json(p.doc, json);
    }

    Parsed read(const std::string& bytes) const {
        const FormatInfo* f = detect_format(bytes.substr(0, k_detect_bytes));
        REQUIRE(f);
        Parsed p = f->read(std::make_shared<const Source>(bytes), ReadOptions{false});
        REQUIRE_FALSE(p.findings.has_errors());
        return p;
    }

    std::string edited(const std::vector<std::pair<std::string, std::string>>& edits) const {
        std::string j = json;
        for (const auto& [from, to] : edits) {
            const auto at = j.find(from);
            REQUIRE_MESSAGE(at != std::string::npos, from);
            j.replace(at, from.size(), to);
        }
        auto packed = format_json(format).from_json(j);
        REQUIRE_MESSAGE(packed, packed.error().message);
        return packed->bytes;
    }
};

struct MergeOutcome {
    std::vector<std::string> conflicts; // "kind path"
    std::string bytes;
    std::size_t from_theirs = 0;
    bool unverified = false;
};

MergeOutcome merged(const Saves& s, const std::string& base, const std::string& ours,
                    const std::string& theirs) {
    const Parsed b = s.read(base), o = s.read(ours), t = s.read(theirs);
    auto m = merge(b.doc, o.doc, t.doc);
    REQUIRE_MESSAGE(m, m.error().message);
    MergeOutcome out;
    for (const auto& c : m->conflicts)
        out.conflicts.push_back(std::string(conflict_kind_text(c.kind)) + " " + c.path.str());
    out.bytes = m->bytes;
    out.from_theirs = m->from_theirs;
    out.unverified = m->unverified.has_value();
    CHECK(out.bytes.empty() == (!out.conflicts.empty() || out.unverified));
    return out;
}

// The changes from `a` to `b`, "path: old -> new" (add / remove: "+path", "-path").
std::vector<std::string> changes(const Saves& s, const std::string& a, const std::string& b) {
    const Parsed x = s.read(a), y = s.read(b);
    std::vector<std::string> out;
    auto r = diff(x.doc, y.doc, DiffOptions{}, [&](const Change& c) {
        if (c.op == Change::Op::add)
            out.push_back("+" + c.path.str());
        else if (c.op == Change::Op::remove)
            out.push_back("-" + c.path.str());
        else if (c.old_node != k_no_node && c.new_node != k_no_node)
            out.push_back(c.path.str() + ": " + std::string(x.doc.value(c.old_node)) + " -> " +
                          std::string(y.doc.value(c.new_node)));
        else
            out.push_back(c.path.str() + ": " + c.old_text + " -> " + c.new_text);
    });
    REQUIRE(r);
    return out;
}

const std::pair<std::string, std::string> k_hurt{R"(["current", "80.000000"])",
                                                 R"(["current", "50.000000"])"};
const std::pair<std::string, std::string> k_axe{R"("meshes/sword.mesh")", R"("meshes/axe.mesh")"};

} // namespace

TEST_CASE("merge: changes to different entities are both taken, and the result verifies") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const std::string ours = s.edited({k_hurt}), theirs = s.edited({k_axe});
    const MergeOutcome m = merged(s, s.base, ours, theirs);
    REQUIRE(m.conflicts.empty());
    CHECK(m.from_theirs == 1);
    CHECK(changes(s, s.base, m.bytes) ==
          std::vector<std::string>{
              "entities[name=player].HealthComponent.current: 80.000000 -> 50.000000",
              "entities[name=sword].MeshRenderer.mesh: meshes/sword.mesh -> meshes/axe.mesh"});
    CHECK_FALSE(format_info(s.format).summarize(m.bytes).findings.has_errors());
    // The other way round gives the same save.
    CHECK(merged(s, s.base, theirs, ours).bytes == m.bytes);
}

TEST_CASE("merge: nothing new from THEIRS keeps OURS' bytes; OURS unchanged takes THEIRS'") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const std::string ours = s.edited({k_hurt});
    CHECK(merged(s, s.base, ours, s.base).bytes == ours);
    CHECK(merged(s, s.base, ours, ours).bytes == ours); // the same change on both sides, once
    CHECK(merged(s, s.base, ours, ours).from_theirs == 0);
    CHECK(merged(s, s.base, s.base, ours).bytes == ours);
}

TEST_CASE("merge: a value changed differently on both sides is a conflict, with its sides") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const std::string ours = s.edited({k_hurt, k_axe});
    const std::string theirs = s.edited({{k_hurt.first, R"(["current", "60.000000"])"}});
    const Parsed b = s.read(s.base), o = s.read(ours), t = s.read(theirs);
    auto m = merge(b.doc, o.doc, t.doc);
    REQUIRE(m);
    REQUIRE(m->conflicts.size() == 1);
    const MergeConflict& c = m->conflicts[0];
    CHECK(c.kind == MergeConflict::Kind::value);
    CHECK(c.path.str() == "entities[name=player].HealthComponent.current");
    CHECK(c.base.doc->value(c.base.node) == "80.000000");
    CHECK(c.ours.doc->value(c.ours.node) == "50.000000");
    CHECK(c.theirs.doc->value(c.theirs.node) == "60.000000");
    CHECK(m->bytes.empty());
}

TEST_CASE("merge: removed on one side and changed on the other is a conflict") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    // OURS drops the sword's MeshRenderer; THEIRS changes its mesh.
    const std::string ours = s.edited({{R"(},
        {
          "type": "MeshRenderer",
          "properties": [
            ["mesh", "meshes/sword.mesh"],
            ["visible", "1"]
          ]
        })",
                                        "}"}});
    const std::string theirs = s.edited({k_axe});
    CHECK(merged(s, s.base, ours, theirs).conflicts ==
          std::vector<std::string>{
              "removed on one side, changed on the other entities[name=sword].MeshRenderer"});
    CHECK(merged(s, s.base, theirs, ours).conflicts ==
          std::vector<std::string>{
              "removed on one side, changed on the other entities[name=sword].MeshRenderer"});
    // Removed on one side, untouched on the other: removed.
    const MergeOutcome m = merged(s, s.base, ours, s.edited({k_hurt}));
    REQUIRE(m.conflicts.empty());
    CHECK(changes(s, s.base, m.bytes) ==
          std::vector<std::string>{
              "entities[name=player].HealthComponent.current: 80.000000 -> 50.000000",
              "-entities[name=sword].MeshRenderer"});
}

TEST_CASE("merge: a property added on both sides differently is a conflict; the same, once") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const std::string visible = R"(["visible", "1"])";
    const std::string ours = s.edited({{visible, visible + R"(, ["shadow", "1"])"}});
    const std::string theirs = s.edited({{visible, visible + R"(, ["shadow", "0"])"}});
    CHECK(merged(s, s.base, ours, theirs).conflicts ==
          std::vector<std::string>{
              "added on both sides, differently entities[name=sword].MeshRenderer.shadow"});
    const MergeOutcome same = merged(s, s.base, ours,
                                     s.edited({{visible, visible + R"(, )"
                                                                   R"(["shadow", "1"])"},
                                               k_hurt}));
    REQUIRE(same.conflicts.empty());
    CHECK(changes(s, s.base, same.bytes) ==
          std::vector<std::string>{
              "entities[name=player].HealthComponent.current: 80.000000 -> 50.000000",
              "+entities[name=sword].MeshRenderer.shadow"});
}

TEST_CASE("merge: entities added on both sides are a conflict (their indices would shift)") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const std::string end = "    }\n  ],\n  \"customState\"";
    REQUIRE(s.json.find(end) != std::string::npos);
    auto with_entity = [&](const char* name) {
        return s.edited({{end, std::string("    },\n    {\"name\": \"") + name +
                                   "\", \"components\": []}\n  ],\n  \"customState\""}});
    };
    const std::string ours = with_entity("crate"), theirs = with_entity("barrel");
    CHECK(merged(s, s.base, ours, theirs).conflicts ==
          std::vector<std::string>{"items added or removed on both sides entities"});
    // Added on one side only: taken.
    const MergeOutcome m = merged(s, s.base, s.edited({k_hurt}), theirs);
    REQUIRE(m.conflicts.empty());
    CHECK(changes(s, s.base, m.bytes).back() == "+entities[name=barrel]");
}

TEST_CASE("merge: an order THEIRS changed where OURS changed too is a conflict; OURS' is kept") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const std::string a = "[\"mesh\", \"meshes/sword.mesh\"],\n            [\"visible\", \"1\"]";
    const std::string b = "[\"visible\", \"1\"],\n            [\"mesh\", \"meshes/sword.mesh\"]";
    const std::string moved = s.edited({{a, b}});
    // A reorder where the other side changed nothing is taken, as any change.
    MergeOutcome m = merged(s, s.base, s.edited({k_hurt}), moved);
    REQUIRE(m.conflicts.empty());
    CHECK(m.bytes == s.edited({{a, b}, k_hurt}));
    // Where the other side changed a value too: OURS' order is kept, THEIRS' is a conflict.
    const std::string visible = R"(["visible", "1"])", hidden = R"(["visible", "0"])";
    CHECK(merged(s, s.base, s.edited({{visible, hidden}}), moved).conflicts ==
          std::vector<std::string>{
              "ordered differently on the two sides entities[name=sword].MeshRenderer"});
    m = merged(s, s.base, moved, s.edited({{visible, hidden}}));
    REQUIRE(m.conflicts.empty());
    CHECK(m.bytes == s.edited({{a, b}, {visible, hidden}}));
}

TEST_CASE("merge: GMSV members of one component from both sides, re-encoded") {
    const Saves s("gmsv/valid/v3-json.gmsv");
    const std::string ours = s.edited({{R"("Current":75)", R"("Current":80)"}});
    const std::string theirs = s.edited({{R"("Max":100})", R"("Max":120})"}});
    const MergeOutcome m = merged(s, s.base, ours, theirs);
    REQUIRE(m.conflicts.empty());
    CHECK_FALSE(m.unverified);
    CHECK(m.bytes ==
          s.edited({{R"("Current":75)", R"("Current":80)"}, {R"("Max":100})", R"("Max":120})"}}));
}

TEST_CASE("merge: tess columns element by element; one element changed twice is a conflict") {
    const Saves s("tess_world/valid/forty-tiles.tessw");
    const std::string ours = s.edited({{"[0, 100, 200,", "[0, 111, 200,"}});
    const std::string theirs = s.edited({{" 300, 400,", " 300, 444,"}});
    const MergeOutcome m = merged(s, s.base, ours, theirs);
    REQUIRE(m.conflicts.empty());
    CHECK(m.bytes == s.edited({{"[0, 100, 200,", "[0, 111, 200,"}, {" 300, 400,", " 300, 444,"}}));
    CHECK(merged(s, s.base, ours, s.edited({{"[0, 100, 200,", "[0, 112, 200,"}})).conflicts ==
          std::vector<std::string>{"changed on both sides chunks[name=0].fields[0][1]"});
}

TEST_CASE("merge: saves of different versions or formats are refused") {
    const Saves s("spark_save/valid/v4-hierarchy.spark_save");
    const Saves v1("spark_save/real/valid/v1-screenshotless.spark_save");
    const Parsed a = s.read(s.base), b = v1.read(v1.base);
    auto m = merge(b.doc, a.doc, a.doc);
    REQUIRE_FALSE(m);
    CHECK(m.error().code == ErrorCode::bad_usage);
    CHECK(m.error().message.find("migrate them to one version first") != std::string::npos);
    const Saves g("gmsv/valid/v3-json.gmsv");
    const Parsed c = g.read(g.base);
    REQUIRE_FALSE(merge(a.doc, a.doc, c.doc));
}

TEST_CASE("merge: a repeated name whose number changed is a conflict (occurrence is no identity)") {
    const Saves s("spark_save/valid/v1-duplicates.spark_save");
    const std::string both = "[\"current\", \"1\"],\n            [\"current\", \"2\"]";
    const std::string ours = s.edited({{both, "[\"current\", \"2\"]"}});
    const std::string theirs =
        s.edited({{both, "[\"current\", \"1\"],\n            [\"current\", \"5\"]"}});
    CHECK(merged(s, s.base, ours, theirs).conflicts ==
          std::vector<std::string>{
              "children of a repeated name added or removed entities[name=dup].HealthComponent"});
    // The same number on every side: matched by occurrence, merged.
    const MergeOutcome m = merged(s, s.base, theirs, s.base);
    CHECK(m.bytes == theirs);
}
