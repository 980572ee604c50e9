// Internal helpers that turn raw field text into what people read (info, dump).
#pragma once

#include "sparksave/version.hpp"

#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

// "1700000000" (Unix seconds) -> "2023-11-14T22:13:20Z"; text that is not a time in years
// 1970..9999 comes back escaped and unchanged.
std::string iso8601_utc(std::string_view unix_seconds);

// "42.5" (seconds) -> "0:00:42"; text that is not a finite, non-negative number comes back
// escaped and unchanged.
std::string hours_minutes_seconds(std::string_view seconds);

// Whether `text` is a number in JSON's grammar (so it can be printed as a JSON number).
bool is_json_number(std::string_view text) noexcept;

SPARKSAVE_END_NAMESPACE
