// Internal to the library (not installed): the I/O errors of the engine-facing API
// (save_file.cpp, slots.cpp), each naming its path (sparksave/save_file.hpp: "an I/O error names
// its path").
#pragma once

#include "sparksave/error.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// An I/O error that names its path: "<what> <path>: <strerror(err)>".
inline Error io_error_at(const std::filesystem::path& path, std::string_view what, int err) {
    std::string reason = err != 0 ? std::generic_category().message(err) : "unknown error";
    return make_error(ErrorCode::io_error,
                      fmt::format("{} {}: {}", what, display(path_to_utf8(path), true), reason));
}

// `e` with the path in front of its message when it is an I/O error (file_io.hpp's errors do not
// name the file).
inline Error with_path(Error e, const std::filesystem::path& path) {
    if (e.code == ErrorCode::io_error)
        e.message = fmt::format("{}: {}", display(path_to_utf8(path), true), e.message);
    return e;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
