// libFuzzer target for the migration chain (sparksave/migrate.hpp): every input the reader of a
// format with migrations accepts (no error, or only errors a step of the plan repairs,
// MigrationStep::repairs), migrated to each version above its own:
//  - migrate() either refuses with an error, or gives a file that verifies (summarize) at the
//    target version, made by the planned steps; a target that is reached means every lower one
//    is (each version's rules include the older ones' refusals only as the chain applies them);
//  - going through an intermediate version gives the same bytes, and so does the part-by-part
//    driver (migrate_parts) when the chain and the format allow it, and for a .spark_save the
//    engine API's upgrade() (the same verdict, the same v4 bytes);
//  - the library's diff (default options: derived values left out) between the input and the
//    result finds only what the steps change, and every one of the changes that can be counted
//    from the input (the version, each parent, dropped line or state, added Inventory), as
//    formats/README.md describes them (§1.6, §3.4, §4.4, §5) and the registry's step summaries say:
//      every step      the version;
//      spark_save 1>2  an empty metadata.screenshotPath added (every other field keeps its text);
//      spark_save 2>3  parent = -1 added to a Transform without one, the trailing bytes the v2
//                      reader ignored dropped, a custom-state list added when the file had none;
//      spark_save 3>4  nothing (the CRC-32 trailer is derived);
//      spark_kv 1>2    a line without a TAB dropped; a key on several lines left once, with its
//                      last line's value (checked on the whole result too: every key of the
//                      input once, with its last value, and nothing else);
//      tess 1>2        the chunk-state byte of every chunk dropped (body size and CRC derived);
//      gmsv 1>2        an empty Inventory (type 3) added to an entity without one, in the file's
//                      form (JSON {"ItemIds":[]}, indented, or binary 00000000);
//      gmsv 2>3        Position's X/Y from int to float: each changed value is the same number
//                      as a float32 (JSON literals, or the 8-byte binary form).
#include "gmsv/spec.hpp"
#include "spark_kv/spec.hpp"
#include "sparksave/diff.hpp"
#include "sparksave/format.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/save_file.hpp"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace sparksave;

[[noreturn]] void fail(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_migrate: %s%s%s\n", what, detail.empty() ? "" : ": ",
                 detail.c_str());
    std::abort();
}

NodePath pattern(std::string_view text) {
    auto p = NodePath::parse(text);
    if (!p) fail("bad pattern in the target", std::string(text));
    return *p;
}

bool matches(std::string_view text, const NodePath& path) {
    return path_matches(pattern(text), path);
}

std::optional<std::int64_t> integer(std::string_view t) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
    return v;
}

std::int32_t le_i32(std::string_view b, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b[at + i]);
    return static_cast<std::int32_t>(v);
}

// What one input holds, for the whole-result checks of the spark-kv step.
struct KvRecords {
    std::map<std::string, std::string> last; // key -> its last line's value
    std::map<std::string, std::size_t> lines;
    std::size_t no_tab = 0;
};

KvRecords kv_records(const Document& doc) {
    KvRecords r;
    const NodeId records = doc.child(doc.root(), spark_kv::k_records);
    if (records == k_no_node) return r;
    for (NodeId c : doc.children(records)) {
        if (doc.node(c).flags & spark_kv::k_flag_no_tab) {
            ++r.no_tab;
            continue;
        }
        r.last[std::string(doc.name(c))] = std::string(doc.value(c));
        ++r.lines[std::string(doc.name(c))];
    }
    return r;
}

// Which change of a step of `steps` one change of the diff from the input to the result is
// (a name counted per file), or empty: none.
std::string_view explained(const Change& c, const std::vector<const MigrationStep*>& steps,
                           const KvRecords& kv) {
    if (c.path.steps.size() == 1 && c.path.str() == "version" && c.op == Change::Op::change)
        return "version";
    for (const MigrationStep* s : steps) {
        const std::string_view id = s->id;
        if (id == "spark_save_v1_to_v2") {
            if (c.op == Change::Op::add && c.path.str() == "metadata.screenshotPath" &&
                c.new_doc->value(c.new_node).empty())
                return "screenshotPath added";
        } else if (id == "spark_save_v2_to_v3") {
            if (c.op == Change::Op::add && matches("entities[*].Transform.parent", c.path) &&
                c.new_doc->value(c.new_node) == "-1")
                return "parent added";
            if (c.op == Change::Op::remove && c.path.str() == "trailing") return "trailing dropped";
            if (c.op == Change::Op::add && c.path.str() == "customState" &&
                c.new_doc->child_count(c.new_node) == 0)
                return "customState added";
        } else if (id == "spark_kv_v1_to_v2") {
            if (!matches("records.*", c.path)) continue;
            if (c.op == Change::Op::remove &&
                (c.old_doc->node(c.old_node).flags & spark_kv::k_flag_no_tab))
                return "line without a TAB dropped";
            // A repeated key: its earlier lines go, the value is its last line's.
            const std::string key(c.old_node != k_no_node ? c.old_doc->name(c.old_node) : "");
            auto n = kv.lines.find(key);
            if (n == kv.lines.end() || n->second < 2) continue;
            if (c.op == Change::Op::remove) return "repeated key dropped";
            if (c.op == Change::Op::change && c.new_doc->name(c.new_node) == key &&
                c.new_doc->value(c.new_node) == kv.last.at(key))
                return "repeated key: last value";
        } else if (id == "tess_world_v1_to_v2") {
            if (c.op == Change::Op::remove && matches("chunks[*].state", c.path))
                return "chunk state dropped";
        } else if (id == "gmsv_v1_to_v2") {
            if (c.op == Change::Op::add && matches("entities[*].Inventory", c.path)) {
                const std::string_view v = c.new_doc->value(c.new_node);
                if (v == "{\"ItemIds\":[]}" || v == "{\n  \"ItemIds\": []\n}" ||
                    v == std::string_view("\0\0\0\0", 4))
                    return "Inventory added";
            }
        } else if (id == "gmsv_v2_to_v3") {
            if (c.op != Change::Op::change) continue;
            if (!matches("entities[*].Position", c.path) &&
                !matches("entities[*].Position.**", c.path))
                continue;
            const Node& a = c.old_doc->node(c.old_node);
            const Node& b = c.new_doc->node(c.new_node);
            const std::string_view va = c.old_doc->value(c.old_node);
            const std::string_view vb = c.new_doc->value(c.new_node);
            if (a.kind == NodeKind::bytes && b.kind == NodeKind::bytes && va.size() == 8 &&
                vb.size() == 8) {
                bool same = true;
                for (std::size_t i = 0; i < 8; i += 4) {
                    float f;
                    std::uint32_t bits = static_cast<std::uint32_t>(le_i32(vb, i));
                    std::memcpy(&f, &bits, 4);
                    same &= static_cast<float>(le_i32(va, i)) == f;
                }
                if (same) return "Position to float";
            }
            if (a.kind == NodeKind::scalar && b.kind == NodeKind::scalar) {
                auto i = integer(va);
                if (i && *i >= INT32_MIN && *i <= INT32_MAX &&
                    vb.find('.') != std::string_view::npos) {
                    const double d = std::strtod(std::string(vb).c_str(), nullptr);
                    if (static_cast<double>(static_cast<float>(static_cast<std::int32_t>(*i))) == d)
                        return "Position to float";
                }
            }
        }
    }
    return {};
}

// How many changes of each kind the plan makes in `doc`, for the kinds that can be counted from
// the input alone: the diff must find each of them (it finds only these, and all of them).
std::map<std::string_view, std::size_t>
expected_changes(const Document& doc, const std::vector<const MigrationStep*>& steps,
                 const KvRecords& kv) {
    std::map<std::string_view, std::size_t> n{{"version", 1}};
    const NodeId root = doc.root();
    for (const MigrationStep* s : steps) {
        const std::string_view id = s->id;
        if (id == "spark_save_v2_to_v3") {
            const NodeId entities = doc.child(root, "entities");
            std::size_t parents = 0;
            if (entities != k_no_node)
                for (NodeId e : doc.children(entities))
                    for (NodeId c : doc.children(e))
                        parents +=
                            doc.name(c) == "Transform" && doc.child(c, "parent") == k_no_node;
            n["parent added"] = parents;
            n["trailing dropped"] = doc.child(root, "trailing") != k_no_node;
        } else if (id == "spark_kv_v1_to_v2") {
            n["line without a TAB dropped"] = kv.no_tab;
            std::size_t dropped = 0;
            for (const auto& [key, lines] : kv.lines) dropped += lines - 1;
            n["repeated key dropped"] = dropped;
        } else if (id == "tess_world_v1_to_v2") {
            const NodeId chunks = doc.child(root, "chunks");
            std::size_t states = 0;
            if (chunks != k_no_node)
                for (NodeId c : doc.children(chunks)) states += doc.child(c, "state") != k_no_node;
            n["chunk state dropped"] = states;
        } else if (id == "gmsv_v1_to_v2") {
            const NodeId entities = doc.child(root, gmsv::k_entities);
            std::size_t without = 0;
            if (entities != k_no_node)
                for (NodeId e : doc.children(entities))
                    without += doc.child(e, "Inventory") == k_no_node;
            n["Inventory added"] = without;
        }
    }
    return n;
}

std::string describe(const Change& c) {
    return std::string(op_name(c.op)) + " " + c.path.str();
}

bool by_parts(const std::vector<const MigrationStep*>& steps) {
    for (const MigrationStep* s : steps)
        if (!s->by_parts()) return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const FormatInfo* format =
        detect_format(std::string_view(bytes).substr(0, k_detect_bytes), false);
    if (!format || size > format->max_file_size) return 0;
    auto source = std::make_shared<const Source>(bytes);
    Parsed input = format->read(source, ReadOptions{});
    const std::uint32_t from = input.doc.version();
    if (from == 0 || from >= format->current_version) return 0;
    const KvRecords kv = kv_records(input.doc);
    // A tree does not differ from itself.
    std::string self;
    auto same = diff(input.doc, input.doc, DiffOptions{}, [&](const Change& c) {
        if (self.empty()) self = describe(c);
    });
    if (!same) fail("diff refused a tree and itself", same.error().describe());
    if (!self.empty()) fail("diff finds a change between a tree and itself", self);

    bool refused_below = false;
    std::optional<std::string> first_step_result; // from + 1
    for (std::uint32_t to = from + 1; to <= format->current_version; ++to) {
        auto plan = plan_migration(format->id, from, to);
        if (!plan) fail("no plan below the current version", plan.error().describe());
        // The reader accepts it for this migration: no error, or only errors the plan repairs.
        if (input.findings.has_errors() &&
            unrepaired_error(input.findings, format->id, from, to).has_value())
            continue;
        auto migrated = migrate(input.doc, to);
        // The engine API's in-memory upgrade is this chain to the current version.
        if (format->id == FormatId::spark_save && to == format->current_version &&
            !input.findings.has_errors()) {
            auto up = spark_save::upgrade(spark_save::as_save_bytes(bytes));
            if (up.has_value() != migrated.has_value())
                fail("upgrade() and migrate() disagree on migrating the file");
            if (up && *up != migrated->bytes) fail("upgrade() and migrate() make other bytes");
        }
        if (!migrated) {
            refused_below = true;
            continue;
        }
        if (refused_below) fail("a target reached above one refused", std::to_string(to));
        if (migrated->steps != *plan) fail("migrate ran other steps than the plan");
        const Summary check = format->summarize(migrated->bytes);
        if (check.findings.has_errors() || check.version != to)
            fail("the result does not verify at the target version",
                 check.findings.has_errors() ? check.findings.first_error()->describe()
                                             : std::to_string(check.version));

        // Through an intermediate version: the same bytes.
        if (to == from + 1) {
            first_step_result = migrated->bytes;
        } else if (first_step_result) {
            Parsed mid = format->read(std::make_shared<const Source>(*first_step_result), {});
            auto again = migrate(mid.doc, to);
            if (!again)
                fail("a target refused from an intermediate result", again.error().describe());
            if (again->bytes != migrated->bytes)
                fail("migrating through an intermediate version gives other bytes");
        }
        // Part by part: the same bytes.
        if (!input.findings.has_errors() && format->stream && format->part_writer &&
            by_parts(*plan)) {
            std::string streamed;
            auto parts =
                migrate_parts(*format, source, to, [&](std::string_view b) -> Result<void> {
                    streamed.append(b);
                    return {};
                });
            if (!parts) fail("migrate_parts refused what migrate took", parts.error().describe());
            if (streamed != migrated->bytes) fail("migrate_parts gives other bytes than migrate");
        }

        // The diff finds only what the steps change.
        Parsed result = format->read(std::make_shared<const Source>(migrated->bytes), {});
        std::string unexplained;
        std::map<std::string_view, std::size_t> found;
        std::size_t forward_adds = 0, forward_removes = 0;
        auto d = diff(input.doc, result.doc, DiffOptions{}, [&](const Change& c) {
            const std::string_view kind = explained(c, *plan, kv);
            if (kind.empty() && unexplained.empty()) unexplained = describe(c);
            ++found[kind];
            forward_adds += c.op == Change::Op::add;
            forward_removes += c.op == Change::Op::remove;
        });
        if (!d) fail("diff refused the input and its result", d.error().describe());
        if (!unexplained.empty())
            fail("the diff finds a change no step of the plan makes", unexplained);
        // And the other way: as many changes, each add a remove and each remove an add.
        std::size_t forward = 0, backward = 0, adds = 0, removes = 0;
        for (const auto& [kind, count] : found) forward += count;
        auto back = diff(result.doc, input.doc, DiffOptions{}, [&](const Change& c) {
            ++backward;
            adds += c.op == Change::Op::add;
            removes += c.op == Change::Op::remove;
        });
        if (!back) fail("diff refused the result and its input", back.error().describe());
        if (backward != forward || adds != forward_removes || removes != forward_adds)
            fail("the diff of the result and its input is not the reverse");
        for (const auto& [kind, count] : expected_changes(input.doc, *plan, kv))
            if (found[kind] != count)
                fail("the diff does not find every change of the plan",
                     std::string(kind) + ": " + std::to_string(found[kind]) + " of " +
                         std::to_string(count));
        if (format->id == FormatId::spark_kv) {
            const KvRecords out = kv_records(result.doc);
            if (out.no_tab != 0 || out.last != kv.last)
                fail("the v2 store does not hold the last value of every key");
            for (const auto& [key, n] : out.lines)
                if (n != 1) fail("a key is on several lines of the v2 store", key);
        }
    }
    return 0;
}
