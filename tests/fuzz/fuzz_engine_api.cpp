// libFuzzer target for the engine-facing API (sparksave/save_file.hpp): SaveView::parse must
// agree with the library's verify (spark_save::summarize, what `sparksave verify` runs) on every
// input, under both Accept modes: the same verdict, the same first error (code, offset, node
// path, message), the same warnings; and SaveWriter must rebuild every accepted view: the same
// metadata values (each float as the engine's writer writes it, to 6 significant digits: a view's
// `1.2345678` comes back 1.23457), entities and custom state, and for a v3/v4 file byte for byte
// everything after
// the metadata block (the writer writes v4 and renders the typed metadata itself, so a block whose
// numbers are spelled otherwise, `+5` or `007`, is the one part that may differ; when it is
// spelled as the writer spells it, a v4 file comes back identical). The in-memory upgrade of an
// accepted file must verify as v4 and parse back to the same content, a Transform's added
// `parent=-1` aside; read_metadata of an accepted file reads the view's metadata.
#include "spark_save/api.hpp"
#include "sparksave/save_file.hpp"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <locale>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace sparksave;
using namespace sparksave::spark_save;

[[noreturn]] void fail(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_engine_api: %s%s%s\n", what, detail.empty() ? "" : ": ",
                 detail.c_str());
    std::abort();
}

bool same_error(const Error& a, const Error& b) {
    return a.code == b.code && a.offset == b.offset && a.path == b.path && a.message == b.message;
}

std::uint32_t le32(std::string_view b, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b[at + i]);
    return v;
}

bool same_float(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// A metadata float after the engine's writer and reader (SaveFileCodec.cpp: BuildMetadataBlock
// writes `stream << value`, default formatting, 6 significant digits; ParseMetadataBlock reads it
// back with `stream >> value`), with the streams themselves; `subnormal` is raised when what it
// reads is below float's normal range (the reader's build-difference warning, which the writer
// refuses).
float engine_written(float v, bool& subnormal) {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out << v;
    std::istringstream in(out.str());
    in.imbue(std::locale::classic());
    float back = 0;
    in >> back;
    if (!in || back != back) fail("the engine's streams do not read back what they wrote");
    subnormal = subnormal || (back != 0 && std::fabs(back) < FLT_MIN);
    return back;
}

// The metadata SaveWriter's bytes must hold for `m`: its values, each float as the engine's
// writer writes it (a float of more than 6 significant digits comes back rounded to 6).
Metadata engine_written(Metadata m, bool& subnormal) {
    for (float* f : {&m.play_time, &m.player_health, &m.player_armor, &m.position.x, &m.position.y,
                     &m.position.z})
        *f = engine_written(*f, subnormal);
    return m;
}

bool same_metadata(const Metadata& a, const Metadata& b, bool with_screenshot) {
    return a.save_name == b.save_name && a.scene_name == b.scene_name &&
           a.player_class == b.player_class &&
           (!with_screenshot || a.screenshot_path == b.screenshot_path) &&
           a.timestamp == b.timestamp && same_float(a.play_time, b.play_time) &&
           same_float(a.player_health, b.player_health) &&
           same_float(a.player_armor, b.player_armor) && same_float(a.position.x, b.position.x) &&
           same_float(a.position.y, b.position.y) && same_float(a.position.z, b.position.z) &&
           a.player_kills == b.player_kills && a.player_deaths == b.player_deaths;
}

// The content of two views is the same; `added_parent`: b's Transforms may end with a
// `parent=-1` that a's lack (the 2 -> 3 step).
bool same_content(const SaveView& a, const SaveView& b, bool added_parent) {
    if (a.entities().size() != b.entities().size()) return false;
    for (std::size_t e = 0; e < a.entities().size(); ++e) {
        const Entity& x = a.entities()[e];
        const Entity& y = b.entities()[e];
        if (x.name != y.name || x.components.size() != y.components.size()) return false;
        for (std::size_t c = 0; c < x.components.size(); ++c) {
            const Component& p = x.components[c];
            const Component& q = y.components[c];
            if (p.type != q.type) return false;
            std::size_t n = p.properties.size();
            if (q.properties.size() != n) {
                bool has_parent = false;
                for (const Property& pr : p.properties) has_parent |= pr.key == "parent";
                if (!added_parent || p.type != "Transform" || has_parent ||
                    q.properties.size() != n + 1 || q.properties[n].key != "parent" ||
                    q.properties[n].value != "-1")
                    return false;
            }
            for (std::size_t i = 0; i < n; ++i)
                if (p.properties[i].key != q.properties[i].key ||
                    p.properties[i].value != q.properties[i].value)
                    return false;
        }
    }
    if (a.custom_state().size() != b.custom_state().size()) return false;
    for (std::size_t i = 0; i < a.custom_state().size(); ++i)
        if (a.custom_state()[i].key != b.custom_state()[i].key ||
            a.custom_state()[i].value != b.custom_state()[i].value)
            return false;
    return true;
}

// Everything after the metadata block of a v3/v4 file, without a v4 trailer.
std::string_view payload(std::string_view file) {
    const std::uint32_t version = le32(file, 4);
    const std::size_t start = 12 + std::size_t{le32(file, 8)};
    const std::size_t end = version == 4 ? file.size() - 4 : file.size();
    return file.substr(start, end - start);
}

std::string_view block(std::string_view file) {
    return file.substr(12, le32(file, 8));
}

void check_writer(const SaveView& view, std::string_view bytes) {
    const Metadata& m = view.metadata();
    bool subnormal = false;
    const Metadata expected = engine_written(m, subnormal);
    SaveWriter w(m);
    for (const Entity& e : view.entities()) {
        w.entity(e.name);
        for (const Component& c : e.components) {
            w.component(c.type);
            for (const Property& p : c.properties) w.property(p.key, p.value);
        }
    }
    for (const Property& p : view.custom_state()) w.custom(p.key, p.value);
    auto written = w.finish();
    if (!written) {
        // The writer refuses a metadata float the engine's builds read differently (a warning
        // of the view: every warning but a v1/v2 file's needs_migration is a risk the writer may
        // refuse, and a float that the writer's 6 digits put below float's normal range), and
        // what the v4 rules refuse in a v1/v2 file (upgrade() refuses it too).
        if (subnormal) return;
        for (const Error& warning : view.warnings())
            if (warning.code != ErrorCode::needs_migration) return;
        if (m.version <= 2 && !upgrade(as_save_bytes(bytes))) return;
        fail("SaveWriter refused an accepted view", written.error().describe());
    }
    auto back = SaveView::parse(as_save_bytes(*written));
    if (!back) fail("SaveWriter's bytes do not parse", back.error().describe());
    if (!same_metadata(expected, back->metadata(), m.version >= 2))
        fail("SaveWriter's bytes hold other metadata");
    if (!same_content(view, *back, false)) fail("SaveWriter's bytes hold other content");
    if (m.version >= 3) {
        if (payload(*written) != payload(bytes))
            fail("SaveWriter's entities and custom state differ from the file's bytes");
        if (m.version == 4 && block(*written) == block(bytes) && *written != bytes)
            fail("SaveWriter did not rebuild the v4 file byte for byte");
    }
}

void check_upgrade(const SaveView& view, std::string_view bytes) {
    auto up = upgrade(as_save_bytes(bytes));
    if (!up) {
        // Only a v1/v2 file's content can break the v4 rules (the view is accepted).
        if (view.metadata().version >= 3)
            fail("upgrade refused a v3/v4 view", up.error().describe());
        return;
    }
    if (view.metadata().version == 4 && *up != bytes) fail("upgrade changed a v4 file");
    Summary s = summarize(*up);
    if (s.findings.has_errors() || s.version != 4) fail("upgrade's result does not verify as v4");
    auto back = SaveView::parse(as_save_bytes(*up));
    if (!back) fail("upgrade's result does not parse", back.error().describe());
    if (!same_content(view, *back, view.metadata().version <= 2))
        fail("upgrade's result holds other content");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const Summary verify = summarize(bytes);
    const Error* first = verify.findings.first_error();
    std::vector<const Error*> warnings;
    for (const Error& f : verify.findings.items())
        if (f.severity == Severity::warning) warnings.push_back(&f);

    for (Accept accept : {Accept::engine, Accept::any_version}) {
        auto view = SaveView::parse(as_save_bytes(bytes), accept);
        const bool engine_refuses_version =
            accept == Accept::engine && !first && verify.version_known && verify.version < 3;
        if (first) {
            if (view) fail("parse accepted what verify refuses", first->describe());
            if (!same_error(view.error(), *first))
                fail("parse's error is not verify's first error",
                     view.error().describe() + " / " + first->describe());
            continue;
        }
        if (engine_refuses_version) {
            if (view) fail("Accept::engine took a v1/v2 file");
            if (view.error().code != ErrorCode::needs_migration)
                fail("a v1/v2 file refused without needs_migration", view.error().describe());
            continue;
        }
        if (!view) {
            // The one documented difference (save_file.hpp): a v1/v2 block whose numbers do not
            // all read has no typed metadata; the refusal is verify's warning about it.
            bool that_warning = verify.version <= 2 && view.error().code == ErrorCode::bad_metadata;
            if (that_warning) {
                that_warning = false;
                for (const Error* w : warnings)
                    that_warning |=
                        w->code == ErrorCode::bad_metadata && same_error(*w, view.error());
            }
            if (!that_warning) fail("parse refused what verify accepts", view.error().describe());
            continue;
        }
        if (view->metadata().version != verify.version)
            fail("parse and verify differ on the version");
        if (view->warnings().size() != warnings.size()) fail("parse's warnings are not verify's");
        for (std::size_t i = 0; i < warnings.size(); ++i)
            if (!same_error(view->warnings()[i], *warnings[i]))
                fail("parse's warnings are not verify's", view->warnings()[i].describe());
        // The metadata-only read gives the same metadata as the whole parse.
        auto head = read_metadata(as_save_bytes(bytes));
        if (!head) fail("read_metadata refuses an accepted view", head.error().describe());
        if (head->version != view->metadata().version ||
            !same_metadata(*head, view->metadata(), true))
            fail("read_metadata and SaveView::parse read other metadata");
        check_writer(*view, bytes);
        if (accept == Accept::any_version) check_upgrade(*view, bytes);
    }
    return 0;
}
