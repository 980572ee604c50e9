// Usage errors (usage.hpp): the option checks, and CLI11's errors said as sparksave says things.
#include "usage.hpp"

#include "common.hpp"

#include "sparksave/escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

namespace sparksave::app {

namespace {

// A value as typed, made safe to print, in single quotes.
std::string in_quotes(std::string_view value) {
    return "'" + show_path(value) + "'";
}

// "-o/--output": every name of an option.
std::string all_names(const CLI::Option& opt) {
    std::string names;
    for (const auto& s : opt.get_snames()) names += (names.empty() ? "-" : "/-") + s;
    for (const auto& l : opt.get_lnames()) names += (names.empty() ? "--" : "/--") + l;
    return names.empty() ? opt.get_name(true) : names;
}

// Optimal string alignment distance (Levenshtein with transpositions): `--dryrun` is one edit
// from `--dry-run`, `--stirct` one from `--strict`.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// The long option of `apps` nearest to `typed` (dashes left out), and the App it belongs to,
// when it is close: one edit for a name of up to 6 letters, two for a longer one; none for a
// name of 1-2 letters.
std::optional<std::pair<std::string, const CLI::App*>>
nearest_option(std::string_view typed, const std::vector<const CLI::App*>& apps) {
    while (typed.starts_with('-')) typed.remove_prefix(1);
    if (typed.size() < 3) return std::nullopt;
    const std::size_t close = typed.size() <= 6 ? 1 : 2;
    std::optional<std::pair<std::string, const CLI::App*>> best;
    std::size_t best_distance = close + 1;
    for (const CLI::App* app : apps)
        for (const CLI::Option* opt : app->get_options())
            for (const auto& name : opt->get_lnames())
                if (const std::size_t d = edit_distance(typed, name); d < best_distance) {
                    best_distance = d;
                    best.emplace("--" + name, app);
                }
    return best;
}

// The command a failed parse was for: the subcommand given (the innermost: `git install`), or
// the program itself.
const CLI::App& selected(const CLI::App& app) {
    const CLI::App* cmd = &app;
    for (auto subs = cmd->get_subcommands(); !subs.empty(); subs = cmd->get_subcommands())
        cmd = subs.front();
    return *cmd;
}

// A command's name as it is typed after `sparksave`: "diff", "git install".
std::string command_name(const CLI::App& cmd) {
    std::string name = cmd.get_name();
    for (const CLI::App* up = cmd.get_parent(); up && up->get_parent(); up = up->get_parent())
        name = up->get_name() + " " + name;
    return name;
}

// "FILE", "A B", "PATH...": the arguments `cmd` takes.
std::string positionals(const CLI::App& cmd) {
    std::string names;
    for (const CLI::Option* opt : cmd.get_options())
        if (opt->get_positional())
            names += (names.empty() ? "" : " ") + opt->get_name(true) +
                     (opt->get_items_expected_max() > 1 ? "..." : "");
    return names;
}

std::string commands(const CLI::App& app) {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({}))
        names += (names.empty() ? "" : ", ") + sub->get_name();
    return names;
}

struct Said {
    std::string text;
    const CLI::App* where; // the command whose help is pointed at
};

// An argument that no option and no positional took.
Said unknown_argument(const CLI::App& app, const CLI::App& cmd, const std::string& arg) {
    if (!arg.starts_with('-') || arg == "-") {
        if (&cmd == &app) return {"unexpected argument " + in_quotes(arg), &app};
        if (!cmd.get_subcommands({}).empty()) // `git frobnicate`
            return {fmt::format("unknown command {} (commands: {})", in_quotes(arg), commands(cmd)),
                    &cmd};
        return {fmt::format("unexpected argument {}: {} takes {}", in_quotes(arg),
                            command_name(cmd), positionals(cmd)),
                &cmd};
    }
    const std::string name = arg.substr(0, arg.find('='));
    std::string text = "unknown option " + show_path(arg);
    std::error_code ec;
    const bool file_like = name.find_first_of("./\\") != std::string::npos ||
                           std::filesystem::exists(path_from_utf8(arg), ec);
    const auto nearest =
        file_like ? std::nullopt : nearest_option(name, std::vector<const CLI::App*>{&cmd, &app});
    if (nearest) // an option of every command (--color) has the program's help
        return {text + "; did you mean " + nearest->first + "?", nearest->second};
    if (file_like)
        text += fmt::format("; a file whose name starts with '-' is written ./{}, or after --",
                            show_path(arg));
    return {text, &cmd};
}

// An option that takes one value, given more than once: "--select given twice (a, b)".
std::optional<Said> given_more_than_once(const CLI::App& app, const CLI::App& cmd) {
    for (const CLI::App* where : {&cmd, &app}) {
        for (const CLI::Option* opt : where->get_options()) {
            if (opt->get_multi_option_policy() != CLI::MultiOptionPolicy::Throw ||
                opt->get_items_expected_max() != 1 || opt->get_positional() || opt->count() < 2)
                continue;
            std::string values;
            for (const auto& v : opt->results()) values += (values.empty() ? "" : ", ") + v;
            const std::string times =
                opt->count() == 2 ? "twice" : fmt::format("{} times", opt->count());
            return Said{fmt::format("{} given {} ({}): give it once", all_names(*opt), times,
                                    show_path(values)),
                        where};
        }
    }
    return std::nullopt;
}

// The option of `cmd` or `app` a CLI11 message starts with ("--select: 1 required TEXT missing").
std::optional<Said> option_without_value(const CLI::App& app, const CLI::App& cmd,
                                         std::string_view what) {
    const std::string_view name = what.substr(0, what.find(':'));
    for (const CLI::App* where : {&cmd, &app})
        for (const CLI::Option* opt : where->get_options())
            if (!opt->get_positional() && opt->get_name() == name)
                return Said{all_names(*opt) + " expects a value after it, found none", where};
    return std::nullopt;
}

void say(const CLI::App& app, const Said& said) {
    const bool program = said.where == &app || said.where->get_name().empty();
    const std::string command = program ? std::string() : command_name(*said.where);
    message(command.empty() ? said.text : command + ": " + said.text);
    err(fmt::format("Run 'sparksave {}--help' for more information.\n",
                    command.empty() ? "" : command + " "));
}

// What was meant first, whatever error stopped the parse: an argument no option took (`verify
// -dash.spark_save` is not "PATH is required"), then an option given more than once.
std::optional<Said> first_problem(const CLI::App& app, const CLI::App& cmd) {
    for (const std::string& arg : app.remaining(true))
        if (arg != "--") return unknown_argument(app, cmd, arg);
    return given_more_than_once(app, cmd);
}

} // namespace

void usage_error(const std::string& text) {
    throw UsageError(text);
}

CLI::Option* whole_number(CLI::Option* opt, std::string expects, std::uint64_t min,
                          std::uint64_t max, std::string below_min, std::string shown) {
    const std::string name = opt->get_name();
    return opt->check(CLI::Validator(
        [=](std::string& text) -> std::string {
            std::uint64_t n = 0;
            const char* end = text.data() + text.size();
            const auto [at, ec] = std::from_chars(text.data(), end, n);
            const bool number = !text.empty() && ec == std::errc() && at == end;
            if (number && n < min && !below_min.empty())
                throw UsageError(fmt::format("{} {}: {}", name, n, below_min), name);
            if (!number || n < min || n > max)
                throw UsageError(
                    fmt::format("{} expects {}, found {}", name, expects, in_quotes(text)), name);
            return {};
        },
        shown));
}

CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> names) {
    const std::string name = opt->get_name();
    std::string list, braces;
    for (std::size_t i = 0; i < names.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
        braces += (i == 0 ? "" : ",") + names[i];
    }
    return opt->check(CLI::Validator(
        [=](std::string& text) -> std::string {
            if (std::find(names.begin(), names.end(), text) == names.end())
                throw UsageError(fmt::format("{} expects {}{}, found {}", name,
                                             names.size() > 2 ? "one of " : "", list,
                                             in_quotes(text)),
                                 name);
            return {};
        },
        "{" + braces + "}"));
}

CLI::Option* finite_non_negative(CLI::Option* opt) {
    const std::string name = opt->get_name();
    return opt->check(CLI::Validator(
        [=](std::string& text) -> std::string {
            // NaN passes every comparison's negation, and inf would make every two numbers
            // equal: both refused.
            double e = 0;
            if (!CLI::detail::lexical_cast(text, e) || !std::isfinite(e) || e < 0)
                throw UsageError(fmt::format("{} expects a finite number of at least 0, found {}",
                                             name, in_quotes(text)),
                                 name);
            return {};
        },
        "E >= 0"));
}

void check_alone(const CLI::App& cmd, const CLI::Option& alone,
                 const std::vector<std::string>& with) {
    if (alone.count() == 0) return;
    for (const CLI::Option* opt : cmd.get_options()) {
        if (opt == &alone || opt->count() == 0 ||
            std::find(with.begin(), with.end(), opt->get_name()) != with.end())
            continue;
        const std::string found =
            opt->get_positional() ? in_quotes(opt->results().front()) : all_names(*opt);
        std::string others;
        for (const std::string& w : with) others += (others.empty() ? "" : ", ") + w;
        usage_error(fmt::format("{} takes no other option or path{}, found {}", alone.get_name(),
                                others.empty() ? "" : " (only " + others + ")", found));
    }
}

int report_parse_error(const CLI::App& app, const CLI::ParseError& e) {
    const CLI::App& cmd = selected(app);
    if (auto first = first_problem(app, cmd)) {
        say(app, *first);
        return k_exit_trouble;
    }
    const std::string what = e.what();
    if (dynamic_cast<const CLI::RequiredError*>(&e)) {
        if (&cmd == &app)
            return report_program_usage("expected a command (" + commands(app) + "), found none");
        if (!cmd.get_subcommands({}).empty()) { // `git` alone
            say(app, {"expected a command (" + commands(cmd) + "), found none", &cmd});
            return k_exit_trouble;
        }
        for (const CLI::Option* opt : cmd.get_options())
            if (opt->get_required() && opt->count() == 0) {
                say(app, {fmt::format("missing {}: {} takes {}", opt->get_name(true),
                                      command_name(cmd), positionals(cmd)),
                          &cmd});
                return k_exit_trouble;
            }
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e))
        if (auto missing = option_without_value(app, cmd, what)) {
            say(app, *missing);
            return k_exit_trouble;
        }
    say(app, {what, &cmd});
    return k_exit_trouble;
}

int report_usage(const CLI::App& app, const UsageError& e) {
    const CLI::App* where = &selected(app);
    if (auto first = first_problem(app, *where)) {
        say(app, *first);
        return k_exit_trouble;
    }
    for (const CLI::Option* opt : app.get_options())
        if (!e.option().empty() && opt->get_name() == e.option()) where = &app;
    say(app, {e.what(), where});
    return k_exit_trouble;
}

int report_program_usage(std::string_view text) {
    message(text);
    err("Run 'sparksave --help' for more information.\n");
    return k_exit_trouble;
}

} // namespace sparksave::app
