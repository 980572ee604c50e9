// Lookups over the format table (the table itself is formats/registry.cpp).
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <stdexcept>
#include <tuple>

SPARKSAVE_BEGIN_NAMESPACE

const FormatInfo& format_info(FormatId id) {
    for (const auto& f : format_table())
        if (f.id == id) return f;
    throw std::logic_error("format not in the table");
}

const FormatInfo* format_by_name(std::string_view name) noexcept {
    for (const auto& f : format_table())
        if (f.name == name) return &f;
    return nullptr;
}

const FormatInfo* detect_format(std::string_view head, bool signature_only) noexcept {
    for (const auto& f : format_table())
        if (f.detect(head))
            return !signature_only || !f.signature || f.signature(head) ? &f : nullptr;
    return nullptr;
}

std::string_view format_name(FormatId id) noexcept {
    for (const auto& f : format_table())
        if (f.id == id) return f.name;
    return "unknown";
}

std::string_view integrity_name(Integrity integrity) noexcept {
    switch (integrity) {
    case Integrity::verified:
        return "verified";
    case Integrity::mismatch:
        return "mismatch";
    case Integrity::none:
        return "none";
    case Integrity::unknown:
        break;
    }
    return "unknown";
}

std::string format_names() {
    std::string out;
    for (const auto& f : format_table()) {
        if (!out.empty()) out += ", ";
        out += f.name;
    }
    return out;
}

NamedFile named_file(std::string_view filename) {
    for (const auto& f : format_table()) {
        if (!f.directory) continue;
        NamedFile named = f.directory->name(filename);
        if (named.kind == NamedFile::Kind::other) continue;
        return named;
    }
    NamedFile other;
    other.group = std::string(filename);
    other.role = "file";
    other.rank = UINT32_MAX;
    return other;
}

bool listed_before(const NamedFile& a, const NamedFile& b) noexcept {
    auto key = [](const NamedFile& n) { return std::tie(n.rank, n.index, n.group, n.kind); };
    return key(a) < key(b);
}

SPARKSAVE_END_NAMESPACE
