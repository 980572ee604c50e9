// Error codes, findings and their messages.
#include "sparksave/error.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace sparksave {

std::string_view code_name(ErrorCode code) noexcept {
    switch (code) {
    case ErrorCode::io_error:
        return "io_error";
    case ErrorCode::too_large:
        return "too_large";
    case ErrorCode::unknown_format:
        return "unknown_format";
    case ErrorCode::truncated:
        return "truncated";
    case ErrorCode::bad_magic:
        return "bad_magic";
    case ErrorCode::unsupported_version:
        return "unsupported_version";
    case ErrorCode::damaged_version:
        return "damaged_version";
    case ErrorCode::checksum_mismatch:
        return "checksum_mismatch";
    case ErrorCode::trailing_bytes:
        return "trailing_bytes";
    case ErrorCode::limit_exceeded:
        return "limit_exceeded";
    case ErrorCode::bad_metadata:
        return "bad_metadata";
    case ErrorCode::duplicate_component:
        return "duplicate_component";
    case ErrorCode::duplicate_key:
        return "duplicate_key";
    case ErrorCode::name_component:
        return "name_component";
    case ErrorCode::bad_parent:
        return "bad_parent";
    case ErrorCode::needs_migration:
        return "needs_migration";
    case ErrorCode::bad_value:
        return "bad_value";
    case ErrorCode::bad_json:
        return "bad_json";
    case ErrorCode::bad_usage:
        return "bad_usage";
    case ErrorCode::internal:
        return "internal";
    case ErrorCode::dropped_pairs:
        return "dropped_pairs";
    case ErrorCode::bad_syntax:
        return "bad_syntax";
    case ErrorCode::bad_indent:
        return "bad_indent";
    case ErrorCode::multiline_value:
        return "multiline_value";
    case ErrorCode::count_mismatch:
        return "count_mismatch";
    case ErrorCode::name_cut:
        return "name_cut";
    case ErrorCode::marker_in_value:
        return "marker_in_value";
    case ErrorCode::type_alias:
        return "type_alias";
    case ErrorCode::unknown_type:
        return "unknown_type";
    case ErrorCode::bad_escape:
        return "bad_escape";
    case ErrorCode::missing_tab:
        return "missing_tab";
    case ErrorCode::carriage_return:
        return "carriage_return";
    case ErrorCode::placeholder_token:
        return "placeholder_token";
    case ErrorCode::record_shape:
        return "record_shape";
    case ErrorCode::bad_descriptor:
        return "bad_descriptor";
    case ErrorCode::bad_chunk:
        return "bad_chunk";
    case ErrorCode::size_mismatch:
        return "size_mismatch";
    }
    return "internal";
}

std::string_view severity_name(Severity severity) noexcept {
    switch (severity) {
    case Severity::error:
        return "error";
    case Severity::warning:
        return "warning";
    case Severity::note:
        return "note";
    }
    return "error";
}

std::string Error::describe() const {
    std::string out;
    if (has_offset())
        out = fmt::format("at offset {:#x} ({})", offset, offset);
    else if (line != 0)
        out = fmt::format("at {}:{}", line, column);
    if (!path.empty()) {
        out += out.empty() ? "in " : ", in ";
        out += path;
    }
    if (!out.empty()) out += ": ";
    out += message;
    return out;
}

void bad_result_access(const Error& error) noexcept {
    // No allocation if it can be helped: the message is printed in pieces.
    std::fputs("sparksave: value() of a Result holding an error (check has_value() first): ",
               stderr);
    try {
        const std::string text = error.describe();
        std::fwrite(text.data(), 1, text.size(), stderr);
    } catch (...) {
        std::fwrite(error.message.data(), 1, error.message.size(), stderr);
    }
    std::fputc('\n', stderr);
    std::fflush(stderr);
    std::abort();
}

Error make_error(ErrorCode code, std::string message, std::uint64_t offset, std::string path) {
    Error e;
    e.code = code;
    e.severity = Severity::error;
    e.offset = offset;
    e.path = std::move(path);
    e.message = std::move(message);
    return e;
}

void Findings::add(Error finding) {
    // Each severity keeps its first k_max_kept, so warnings never crowd out an error.
    std::size_t& count = finding.severity == Severity::error     ? errors_
                         : finding.severity == Severity::warning ? warnings_
                                                                 : notes_;
    if (++count > k_max_kept) {
        ++dropped_;
        return;
    }
    items_.push_back(std::move(finding));
}

std::size_t Findings::count(Severity severity) const noexcept {
    switch (severity) {
    case Severity::error:
        return errors_;
    case Severity::warning:
        return warnings_;
    case Severity::note:
        return notes_;
    }
    return 0;
}

const Error* Findings::first_error() const noexcept {
    for (const auto& f : items_)
        if (f.severity == Severity::error) return &f;
    return nullptr;
}

} // namespace sparksave
