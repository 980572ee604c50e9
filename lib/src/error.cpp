// Error codes, findings and their messages.
#include "sparksave/error.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

SPARKSAVE_BEGIN_NAMESPACE

std::string_view code_name(ErrorCode code) noexcept {
    switch (code) {
#define SPARKSAVE_ERROR_CODE_NAME(name, meaning)                                                   \
    case ErrorCode::name:                                                                          \
        return #name;
        SPARKSAVE_ERROR_CODES(SPARKSAVE_ERROR_CODE_NAME)
#undef SPARKSAVE_ERROR_CODE_NAME
    }
    return "unknown";
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

SPARKSAVE_END_NAMESPACE
