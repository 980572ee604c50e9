// Usage errors, one rule for every command (sparksave(1) USAGE ERRORS): a command line that
// cannot be run is said on standard error, naming the option, what it expects and what it found
// ("--to expects a version number, found 'abc'"), then the help of the command it was given to
// is pointed at ("Run 'sparksave migrate --help' for more information."); the exit status is 2,
// and nothing was read or written. CLI11's own errors are translated here, once.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sparksave::app {

// A usage error found by an option's check or by a command before it starts its work: thrown,
// and reported by main() (report_usage). `option`: the option it is about, when it is one of
// the options every command takes (its help is then the program's).
class UsageError : public std::runtime_error {
  public:
    explicit UsageError(const std::string& text, std::string option = {})
        : std::runtime_error(text), option_(std::move(option)) {}
    const std::string& option() const noexcept { return option_; }

  private:
    std::string option_;
};
[[noreturn]] void usage_error(const std::string& text);

// The checks of an option's value (each returns `opt`); a bad value is a UsageError naming the
// option, what it expects and what was found.
// A whole number from `min` to `max`, `expects` saying what it is ("a version number"); a
// smaller number, when `below_min` is given, is told that ("--to 0: versions start at 1").
// `shown`: the rule as --help shows it after the value's type.
CLI::Option* whole_number(CLI::Option* opt, std::string expects, std::uint64_t min,
                          std::uint64_t max, std::string below_min = {}, std::string shown = {});
// One of `names` ("--color expects auto, always or never, found 'sometimes'").
CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> names);
// A finite number of at least 0 (NaN and infinities refused).
CLI::Option* finite_non_negative(CLI::Option* opt);

// A UsageError when `cmd` was given anything besides the flag `alone` and the options named in
// `with` ("--list takes no other option or path, found --in-place").
void check_alone(const CLI::App& cmd, const CLI::Option& alone,
                 const std::vector<std::string>& with = {});

// Says a failed command line on standard error and returns the exit status, 2. `app` is the
// program's App after parse() threw: `e` (CLI11's error) or `text` (a UsageError's). An
// argument no option took comes first (an unknown option, with the nearest option's name when
// one is close, or a file name that starts with '-'), then an option given more than once.
int report_parse_error(const CLI::App& app, const CLI::ParseError& e);
int report_usage(const CLI::App& app, const UsageError& e);
// A usage error of the program itself (no command, an unknown command).
int report_program_usage(std::string_view text);

} // namespace sparksave::app
