// The salvage driver (sparksave/salvage.hpp): the format's own salvage (its row's entry), then the
// migration to --to and the read-back check every output gets; and the two reports.
#include "sparksave/salvage.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE

std::string_view salvage_kind_name(SalvageRegion::Kind kind) noexcept {
    switch (kind) {
    case SalvageRegion::Kind::kept:
        return "kept";
    case SalvageRegion::Kind::rebuilt:
        return "rebuilt";
    case SalvageRegion::Kind::lost:
        return "lost";
    }
    return "lost";
}

bool Salvaged::changed_anything() const noexcept {
    for (const SalvageRegion& r : regions)
        if (r.kind != SalvageRegion::Kind::kept) return true;
    return from != version;
}

Result<Salvaged> salvage(const FormatInfo& format, std::string_view bytes,
                         const SalvageOptions& options) {
    if (!format.salvage)
        return make_error(ErrorCode::bad_usage,
                          fmt::format("salvage does not support {} files yet", format.name));
    if (options.to && (*options.to == 0 || *options.to > format.current_version))
        return make_error(ErrorCode::bad_usage,
                          fmt::format("expected a {} version from 1 to {} for --to, found {}",
                                      format.name, format.current_version, *options.to));
    auto made = format.salvage(bytes, options);
    if (!made) return made;
    Salvaged s = std::move(*made);
    if (options.to && *options.to < s.version)
        return make_error(ErrorCode::bad_usage,
                          fmt::format("the file is a {} v{}: salvage does not downgrade it to v{}",
                                      format.name, s.version, *options.to));
    if (s.withheld) return s;
    if (options.to && *options.to > s.version) {
        // The salvaged file, a valid file of its own version, migrated like any other
        // (migrate.hpp: the steps, the writer, the read-back as the target version).
        auto source = std::make_shared<const Source>(s.bytes);
        Parsed parsed = format.read(source, ReadOptions{});
        if (const Error* e = parsed.findings.first_error())
            return make_error(ErrorCode::internal,
                              "the salvaged file does not read back: " + e->describe());
        auto migrated = migrate(parsed.doc, *options.to);
        if (!migrated) return std::move(migrated).error();
        s.bytes = std::move(migrated->bytes);
        s.version = *options.to;
        for (const MigrationNote& n : migrated->notes) s.notes.push_back(n.describe());
    }
    return s;
}

std::optional<Salvaged> nothing_recovered(FormatId format, std::string_view bytes,
                                          const Error& why) {
    if (why.code == ErrorCode::bad_usage || why.code == ErrorCode::internal) return std::nullopt;
    Salvaged s;
    s.format = format;
    s.recovered = false;
    s.input_size = bytes.size();
    SalvageRegion all;
    all.kind = SalvageRegion::Kind::lost;
    all.length = bytes.size();
    all.reason = why.describe();
    s.regions.push_back(std::move(all));
    s.totals.bytes.lost = bytes.size();
    return s;
}

namespace {

std::string salvage_count_text(std::string_view what, const SalvageCount& c) {
    return fmt::format("{} {} kept, {} lost", what, c.kept, c.lost);
}

} // namespace

std::string salvage_report_text(const Salvaged& s, std::string_view name) {
    std::string out = s.recovered
                          ? fmt::format("salvage {}: {} v{} -> v{}, {} bytes\n", display(name),
                                        format_name(s.format), s.from, s.version, s.input_size)
                          : fmt::format("salvage {}: {}, {} bytes\n", display(name),
                                        format_name(s.format), s.input_size);
    std::uint64_t kept_regions = 0;
    for (const SalvageRegion& r : s.regions) {
        if (r.kind == SalvageRegion::Kind::kept) {
            ++kept_regions;
            continue;
        }
        const std::string where =
            r.line != 0 ? fmt::format("at line {}:{} (offset {:#x})", r.line, r.column, r.offset)
                        : fmt::format("at offset {:#x} ({})", r.offset, r.offset);
        out += fmt::format("{:<8} {}, {} bytes: {}", salvage_kind_name(r.kind), where, r.length,
                           r.path.empty() ? "(file)" : display(r.path));
        if (r.kind == SalvageRegion::Kind::rebuilt) out += " = " + display(r.value, true);
        if (!r.reason.empty()) out += ": " + r.reason; // a message: its file text is escaped
        out += '\n';
    }
    out += fmt::format("kept     {} regions, {} bytes\n", kept_regions, s.totals.bytes.kept);
    out += "totals   " + salvage_count_text("entities", s.totals.entities) + "; " +
           salvage_count_text("components", s.totals.components) + "; " +
           salvage_count_text("properties", s.totals.properties) + "; " +
           salvage_count_text("bytes", s.totals.bytes) + "\n";
    for (const std::string& n : s.notes) out += "note     " + n + "\n";
    if (s.unverified)
        out += "warning  no CRC-32 of the file vouches for what was kept (the stored one does not "
               "match it, or the file ends before it): the content is unverified\n";
    if (!s.recovered)
        out += "result   nothing could be recovered: nothing written\n";
    else if (s.withheld)
        out += "result   nothing written: the structure reads completely but the checksum "
               "fails; --accept-checksum writes it with a new checksum\n";
    else if (s.lost_anything())
        out += "result   something was lost (see above); the rest is written\n";
    else if (s.changed_anything() && s.from == s.version)
        out += "result   nothing lost; the fields above were rebuilt\n";
    else if (s.changed_anything())
        out += fmt::format("result   nothing lost; migrated to v{}\n", s.version);
    else
        out += "result   nothing to do: the file is written as it is\n";
    return out;
}

std::string salvage_report_json(const Salvaged& s, std::string_view name, std::string_view input,
                                std::string_view output) {
    std::string out;
    JsonWriter w(out);
    w.begin_object(JsonWriter::Layout::block);
    w.key("schemaVersion").number(k_json_schema_version);
    w.key("input").bytes(name);
    w.key("format").string(format_name(s.format));
    if (s.recovered) {
        w.key("from").number(s.from);
        w.key("to").number(s.version);
    } else {
        w.key("from").null();
        w.key("to").null();
    }
    w.key("inputSize").number(s.input_size);
    if (!s.has_output() || output.empty())
        w.key("output").null();
    else
        w.key("output").bytes(output);
    if (!s.has_output())
        w.key("outputSize").null();
    else
        w.key("outputSize").number(static_cast<std::uint64_t>(s.bytes.size()));
    w.key("unverified").boolean(s.unverified);
    w.key("withheld").boolean(s.withheld);
    w.key("recovered").boolean(s.recovered);
    w.key("lost").boolean(s.lost_anything());
    w.key("totals").begin_object();
    auto count = [&](std::string_view key, const SalvageCount& c) {
        w.key(key).begin_object();
        w.key("kept").number(c.kept);
        w.key("lost").number(c.lost);
        w.end_object();
    };
    count("entities", s.totals.entities);
    count("components", s.totals.components);
    count("properties", s.totals.properties);
    count("bytes", s.totals.bytes);
    w.end_object();
    w.key("notes").begin_array();
    for (const std::string& n : s.notes) w.bytes(n);
    w.end_array();
    w.key("regions").begin_array(JsonWriter::Layout::block);
    static constexpr char k_hex[] = "0123456789abcdef";
    for (const SalvageRegion& r : s.regions) {
        w.begin_object();
        w.key("kind").string(salvage_kind_name(r.kind));
        w.key("offset").number(r.offset);
        w.key("length").number(r.length);
        w.key("path").bytes(r.path);
        if (r.line != 0) {
            w.key("line").number(r.line);
            w.key("column").number(r.column);
        }
        if (r.kind == SalvageRegion::Kind::rebuilt) w.key("value").bytes(r.value);
        if (r.kind != SalvageRegion::Kind::kept) w.key("reason").bytes(r.reason);
        if (r.kind == SalvageRegion::Kind::lost) {
            std::string& o = w.key("hex").raw_value();
            o += '"';
            const std::string_view b =
                r.offset < input.size() ? input.substr(r.offset, r.length) : std::string_view{};
            for (unsigned char c : b) {
                o += k_hex[c >> 4];
                o += k_hex[c & 15];
            }
            o += '"';
        }
        w.end_object();
    }
    w.end_array();
    w.end_object();
    out += '\n';
    return out;
}

SPARKSAVE_END_NAMESPACE
