// The spark-kv reader: one pass over the lines that applies every rule of formats/README.md §3 (the
// list is in spec.hpp) and reports what it reads to a Sink. The tree builder and the summary of
// `info`/`verify` are sinks, so every rule lives here, once. Every line is looked at a constant
// number of times, so reading is linear in the file size.
//
// The members a sink may define are those of SinkDefaults, below.
#pragma once

#include "codec.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "sparksave/error.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

// What a Sink is told, in file order (offsets are file offsets). Each member does nothing here: a
// sink derives from SinkDefaults and defines the members it needs (its own hide these). The
// reader is a template over the sink, so every call is resolved at compile time and an empty
// one costs nothing.
struct SinkDefaults {
    // 1 (legacy) or 2 (v2); offset: where the lines after the marker start.
    void on_start(std::uint32_t /*version*/, std::size_t /*offset*/) {}
    void on_record(const RecordEvent&) {}  // a line with a TAB
    void on_no_tab(const LineEvent&) {}    // a line without one
    void on_end(bool /*final_newline*/) {} // whether the last line ends in LF
};

template <class Sink> class Reader {
  public:
    // `budget`: the engine's store budget (formats/README.md §3); a test gives a small one.
    Reader(std::string_view data, Findings& findings, Sink& sink,
           std::uint64_t budget = k_store_budget)
        : data_(data), findings_(findings), sink_(sink), budget_(budget) {}

    // Reads the whole store; false when a limit stopped the read before the end.
    bool run() {
        // LoadFromDisk checks the file's size before it reads a line.
        // The rewrite is never smaller than the file: its budget error would say nothing more.
        over_budget_ = data_.size() > budget_;
        if (over_budget_)
            refuse(
                ErrorCode::too_large, {1, 1}, [] { return std::string(); },
                [&] {
                    return fmt::format("size {} exceeds the {}-byte store budget", data_.size(),
                                       budget_);
                },
                [&] {
                    return fmt::format("expected at most {} bytes (the engine's store budget), "
                                       "found {}",
                                       budget_, data_.size());
                });
        if (data_.size() > k_max_file_size) {
            if (data_.size() <= budget_)
                add(
                    ErrorCode::too_large, Severity::error, {1, 1}, [] { return std::string(); },
                    [&] {
                        return fmt::format("expected at most {} bytes (sparksave's limit), found "
                                           "{}: the store is not read",
                                           k_max_file_size, data_.size());
                    });
            sink_.on_start(k_version_legacy, 0);
            sink_.on_end(true);
            return false;
        }
        // The marker line (formats/README.md §3): exactly `#!spark-kv-v2` as line 1 and ended by
        // its LF, or the store is legacy and line 1 is a record.
        std::size_t pos = 0;
        bool final_lf = true;
        const std::size_t nl = data_.find('\n');
        const std::string_view first = data_.substr(0, nl == npos ? data_.size() : nl);
        if (first == k_marker) {
            version_ = k_version_v2;
            line_no_ = 1;
            pos = nl == npos ? data_.size() : nl + 1;
            final_lf = nl != npos;
            if (!final_lf) unterminated(first, [] { return std::string(); });
        } else if (looks_like_marker(first)) {
            marker_like_ = true;
        }
        sink_.on_start(version_, pos);
        bool whole = true;
        while (pos < data_.size()) {
            ++line_no_;
            line_start_ = pos;
            std::size_t end = data_.find('\n', pos);
            final_lf = end != npos;
            if (!final_lf) end = data_.size();
            if (!line(data_.substr(pos, end - pos), final_lf)) {
                whole = false;
                break;
            }
            pos = final_lf ? end + 1 : end;
        }
        sink_.on_end(final_lf);
        return whole;
    }

    // The first reason the engine refuses the store, as LoadFromDisk logs it ("line 3 repeats a
    // key"); empty when it loads it (or when a limit stopped the read first).
    const std::string& refusal() const noexcept { return refusal_; }

  private:
    static constexpr std::size_t npos = std::string_view::npos;

    static std::uint32_t col(std::size_t zero_based) noexcept {
        return static_cast<std::uint32_t>(zero_based + 1);
    }
    // The place of a byte of the current line.
    Pos here(std::size_t offset) const noexcept { return {line_no_, col(offset - line_start_)}; }
    bool legacy() const noexcept { return version_ == k_version_legacy; }

    // One line (without its LF; `terminated`: it had one). False stops the read (a limit was
    // reached). The checks follow LoadFromDisk's order (spec.hpp).
    bool line(std::string_view text, bool terminated) {
        if (lines_ >= k_max_lines) {
            add(
                ErrorCode::limit_exceeded, Severity::error, {line_no_, 1},
                [] { return std::string(); },
                [&] {
                    return fmt::format("expected at most {} lines (sparksave's limit), found more: "
                                       "reading stops here, so the engine's verdict on the rest "
                                       "is not known",
                                       k_max_lines);
                });
            return false;
        }
        ++lines_;
        const std::uint64_t index = index_++;
        const std::size_t tab = text.find('\t');
        RecordEvent e;
        if (tab != npos) {
            e.raw = text;
            e.offset = line_start_;
            e.value_offset = line_start_ + tab + 1;
            e.line = line_no_;
            e.index = index;
            e.key = text.substr(0, tab);
            e.value = text.substr(tab + 1);
        }
        const std::string_view key_raw = e.key, value_raw = e.value;
        std::size_t key_bad = 0, key_bad_at = 0, value_bad = 0, value_bad_at = 0;
        if (tab != npos && version_ == k_version_v2) {
            if (key_raw.find('\\') != npos) {
                e.key = decode(key_raw, key_bad, key_bad_at);
                e.key_in_file = false;
            }
            if (value_raw.find('\\') != npos) {
                e.value = decode(value_raw, value_bad, value_bad_at);
                e.value_in_file = false;
            }
        }
        const auto path = [&] { return record_path(e.key); };

        // formats/README.md §3: a last line without its LF is refused before anything else on it.
        if (!terminated) {
            if (tab == npos) {
                unterminated(text, [&] { return index_path(index); });
                sink_.on_no_tab(LineEvent{text, line_start_, line_no_, index});
            } else {
                unterminated(text, path);
                sink_.on_record(e);
            }
            return true;
        }

        if (tab == npos) {
            no_tab(text, index);
            sink_.on_no_tab(LineEvent{text, line_start_, line_no_, index});
            return true;
        }

        if (key_bad) bad_escape(key_raw, key_bad_at, key_bad, e.offset, "key", path);
        if (value_bad)
            bad_escape(value_raw, value_bad_at, value_bad, e.value_offset, "value", path);
        if (!key_bad && !value_bad) {
            // formats/README.md §3: the budget of the rewritten store, then the repeated key.
            canonical_ += escaped_size(e.key) + 1 + escaped_size(e.value) + 1;
            if (canonical_ > budget_ && !over_budget_) {
                over_budget_ = true;
                refuse(
                    ErrorCode::too_large, {line_no_, 1}, path,
                    [&] {
                        return fmt::format("line {} brings the rewritten store over the store "
                                           "budget",
                                           line_no_);
                    },
                    [&] {
                        return fmt::format("expected the store to fit the engine's {}-byte store "
                                           "budget once rewritten (the marker line and every "
                                           "record escaped, as FlushToDisk publishes it), found "
                                           "{} bytes with this line",
                                           budget_, canonical_);
                    });
            }
            repeated(e, path);
        }
        check_final_cr(value_raw, e.value_offset, path);
        check_token(key_raw, e.offset, true, path);
        check_token(value_raw, e.value_offset, false, path);

        e.mmo = mmo_kind(e.key);
        if (e.mmo == Mmo::character) check_character(e, path);
        if (e.mmo == Mmo::inventory) check_inventory(e, path);
        sink_.on_record(e);
        return true;
    }

    // What follows every refusal, for a game (formats/README.md §3).
    static constexpr std::string_view k_refused =
        "the engine refuses the whole store: Open fails, so the MMO module's Initialize fails "
        "(\"Failed to open MMO database\") and the server does not start";

    // An error the engine refuses the store for: `reason()` as LoadFromDisk logs it (the first is
    // kept for Summary::engine_note), the message `rule()` and the consequence. Each is built only
    // when needed (a hostile store can refuse millions of lines).
    template <class PathFn, class ReasonFn, class RuleFn>
    void refuse(ErrorCode code, Pos pos, const PathFn& path, const ReasonFn& reason,
                const RuleFn& rule) {
        if (refusal_.empty()) refusal_ = reason();
        add(code, Severity::error, pos, path,
            [&] { return fmt::format("{}: {}", rule(), k_refused); });
    }

    // The pre-marker reader (f3bb430d) wrote and read legacy stores: where it reads a line the
    // current engine refuses, a warning says what it read (what `migrate` carries over).
    template <class PathFn, class WhatFn>
    void pre_marker(ErrorCode code, Pos pos, const PathFn& path, const WhatFn& what) {
        if (!legacy()) return;
        add(code, Severity::warning, pos, path, [&] {
            return fmt::format("expected every build of the engine to read this line alike, found "
                               "that the pre-marker reader (f3bb430d), which wrote legacy stores, "
                               "{}",
                               what());
        });
    }

    // formats/README.md §3: the last line has no LF (the marker line too, when it is all there
    // is).
    template <class PathFn> void unterminated(std::string_view text, const PathFn& path) {
        const Pos at{line_no_, col(text.size())};
        refuse(
            ErrorCode::truncated, at, path,
            [&] {
                return fmt::format("line {} is not newline-terminated (truncated store)", line_no_);
            },
            [&] {
                return fmt::format("expected line {} to end with a line feed, found the end of "
                                   "the file (every line the engine's writer writes ends with "
                                   "one: the store was cut short)",
                                   line_no_);
            });
        pre_marker(ErrorCode::truncated, at, path, [&] {
            return std::string_view(
                text.find('\t') == npos
                    ? "skips it (it has no TAB); `sparksave migrate` drops it"
                    : "reads it as it is (that writer rewrote the store in place, so a store cut "
                      "short ends like this and the value may be cut); `sparksave migrate` keeps "
                      "the record and ends the line");
        });
    }

    // formats/README.md §3: a line without a TAB, an empty one too, and a first line meant as the
    // marker.
    void no_tab(std::string_view text, std::uint64_t index) {
        const auto path = [&] { return index_path(index); };
        const auto reason = [&] {
            return fmt::format("line {} has no key/value separator", line_no_);
        };
        if (marker_like_ && line_no_ == 1) {
            std::string_view hint;
            if (text.ends_with('\r'))
                hint = " (CRLF line ends: the engine writes LF only)";
            else if (text.starts_with(k_utf8_bom))
                hint = " (a UTF-8 byte order mark before it)";
            refuse(
                ErrorCode::unsupported_version, {1, 1}, [] { return std::string(); }, reason,
                [&] {
                    return fmt::format("expected the marker line \"{}\", found {}{}: not the "
                                       "marker, so the line is a record of a legacy store, and "
                                       "it has no TAB (LoadFromDisk: \"has no key/value "
                                       "separator\")",
                                       k_marker, excerpt(text), hint);
                });
            if (text.size() == k_marker.size() + 1 && text.starts_with(k_marker) &&
                text.back() == '\r')
                add(
                    ErrorCode::carriage_return, Severity::warning, {1, col(k_marker.size())},
                    [] { return std::string(); },
                    [] {
                        return std::string(
                            "expected every build of the engine to read the first line alike, "
                            "found the marker and a CR: the Windows build (LoadFromDisk's "
                            "#ifdef _WIN32 step) strips one CR at the end of every line and reads "
                            "the store as v2, the POSIX build refuses it");
                    });
            return;
        }
        refuse(ErrorCode::missing_tab, {line_no_, 1}, path, reason, [&] {
            if (text.empty())
                return std::string("expected KEY<TAB>VALUE, found an empty line (LoadFromDisk: "
                                   "\"has no key/value separator\")");
            return fmt::format("expected KEY<TAB>VALUE, found a line without a TAB ({}) "
                               "(LoadFromDisk: \"has no key/value separator\")",
                               excerpt(text));
        });
        pre_marker(ErrorCode::missing_tab, {line_no_, 1}, path, [] {
            return std::string_view(
                "skips it (it skips every line without a TAB); `sparksave migrate` drops it");
        });
    }

    // formats/README.md §3: a key seen before, compared as the engine reads keys.
    template <class PathFn> void repeated(RecordEvent& e, const PathFn& path) {
        auto [it, inserted] = seen_.try_emplace(e.key, line_no_);
        if (inserted) return;
        const std::uint32_t earlier = it->second;
        it->second = line_no_;
        e.repeated = true;
        refuse(
            ErrorCode::duplicate_key, {line_no_, 1}, path,
            [&] { return fmt::format("line {} repeats a key", line_no_); },
            [&] {
                return fmt::format("expected each key once, found {} again (line {} has it too) "
                                   "(LoadFromDisk: \"repeats a key\")",
                                   excerpt(e.key), earlier);
            });
        pre_marker(ErrorCode::duplicate_key, {line_no_, 1}, path, [&] {
            return fmt::format("keeps the last line of a key, so there line {} is lost; "
                               "`sparksave migrate` keeps this line's value",
                               earlier);
        });
    }

    // Decodes a v2 field into the reader's buffer (codec.hpp); `bad` counts the backslashes the
    // engine refuses, `first_bad` is the first one's index in `raw`.
    std::string_view decode(std::string_view raw, std::size_t& bad, std::size_t& first_bad) {
        // Decoding never makes text longer, so a buffer the size of the file never moves and
        // every view handed out stays valid.
        if (decoded_.capacity() < data_.size()) decoded_.reserve(data_.size());
        const std::size_t start = decoded_.size();
        decode_v2(raw, decoded_, [&](std::size_t i) {
            if (bad++ == 0) first_bad = i;
        });
        return std::string_view(decoded_).substr(start);
    }

    template <class PathFn>
    void bad_escape(std::string_view raw, std::size_t at, std::size_t count, std::size_t base,
                    std::string_view what, const PathFn& path) {
        refuse(
            ErrorCode::bad_escape, here(base + at), path,
            [&] {
                return fmt::format("line {} contains an escape sequence the writer never produces",
                                   line_no_);
            },
            [&] {
                const std::string more = count > 1
                                             ? fmt::format(" ({} more in this {})", count - 1, what)
                                             : std::string();
                const std::string found =
                    at + 1 >= raw.size()
                        ? fmt::format("a lone backslash at the end of the {}", what)
                        : display(raw.substr(at, 2), true);
                return fmt::format("expected `\\\\`, `\\t`, `\\n` or `\\r` after a backslash, "
                                   "found {}{} (LoadFromDisk: \"an escape sequence the writer "
                                   "never produces\")",
                                   found, more);
            });
    }

    // formats/README.md §3: a CR that ends a record's line is the value's last character for the
    // POSIX build, and is stripped by the Windows build.
    template <class PathFn>
    void check_final_cr(std::string_view value_raw, std::size_t base, const PathFn& path) {
        if (!value_raw.ends_with('\r')) return;
        add(ErrorCode::carriage_return, Severity::warning, here(base + value_raw.size() - 1), path,
            [&] {
                return std::string(
                    "expected every build of the engine to read this value alike, found a CR "
                    "ending the line: the POSIX build keeps it as the value's last character "
                    "(its writer then escapes it as \\r), the Windows build (LoadFromDisk's "
                    "#ifdef _WIN32 step) strips it; the file was probably converted to CRLF "
                    "line ends");
            });
    }

    // formats/README.md §3: the placeholder bug. Tokens are made of characters no escape changes,
    // so searching the raw text finds exactly the tokens of the decoded text, at file columns.
    template <class PathFn>
    void check_token(std::string_view raw, std::size_t base, bool key, const PathFn& path) {
        std::size_t length = 0;
        const std::size_t at = find_token(raw, length);
        if (at == npos) return;
        add(ErrorCode::placeholder_token, Severity::warning, here(base + at), path, [&] {
            const std::string token = excerpt(raw.substr(at, length));
            if (key)
                return fmt::format("expected no unsubstituted query parameter, found {} in the "
                                   "key: the database layer substitutes only ?N tokens that have "
                                   "a bound parameter (the MMO code's %N tokens pass through "
                                   "verbatim), so every record written this way lands on this "
                                   "one key",
                                   token);
            return fmt::format("expected no unsubstituted query parameter, found {} in the "
                               "value: the token was stored instead of the data it stands for",
                               token);
        });
    }

    // Where a field of a record's value is in the file: exact when the value holds no escape,
    // else the value's start.
    Pos field_pos(const RecordEvent& e, std::string_view field) const noexcept {
        if (!e.value_in_file) return here(e.value_offset);
        return here(e.value_offset + static_cast<std::size_t>(field.data() - e.value.data()));
    }

    template <class PathFn> void check_character(const RecordEvent& e, const PathFn& path) {
        const std::size_t n = field_count(e.value, k_field_separator);
        if (n == k_character_field_count) return;
        add(ErrorCode::record_shape, Severity::warning, field_pos(e, e.value), path, [&] {
            if (n == k_legacy_character_field_count)
                return std::string(
                    "expected 15 `|`-separated fields (name|accountId|level|xp|areaId|posX|posY|"
                    "posZ|rotY|health|maxHealth|mana|maxMana|playTime|currency), found 14: the "
                    "legacy form without accountId, which the current MMO module does not "
                    "expect");
            return fmt::format("expected 15 `|`-separated fields (name|accountId|level|xp|areaId|"
                               "posX|posY|posZ|rotY|health|maxHealth|mana|maxMana|playTime|"
                               "currency), found {}",
                               n);
        });
    }

    template <class PathFn> void check_inventory(const RecordEvent& e, const PathFn& path) {
        const std::size_t n = field_count(e.value, k_field_separator);
        if (n != k_inventory_fields.size()) {
            add(ErrorCode::record_shape, Severity::warning, field_pos(e, e.value), path, [&] {
                return fmt::format("expected 5 `|`-separated fields (1|maxSlots|maxWeight|"
                                   "slotCount|slot:itemDefId:count,...), found {}",
                                   n);
            });
            return;
        }
        std::string_view fields[5];
        std::size_t i = 0;
        for_each_field(e.value, k_field_separator, [&](std::string_view f) { fields[i++] = f; });
        auto field_path = [&](std::size_t f) {
            return [&path, f] {
                std::string p = path();
                append_path_name(p, k_inventory_fields[f]);
                return p;
            };
        };
        if (fields[0] != k_inventory_layout)
            add(ErrorCode::record_shape, Severity::warning, field_pos(e, fields[0]), field_path(0),
                [&] {
                    return fmt::format("expected the inventory layout {} as the first field, "
                                       "found {}",
                                       k_inventory_layout, excerpt(fields[0]));
                });
        std::size_t entries = 0;
        bool reported = false;
        for_each_slot(fields[4], [&](std::string_view entry) {
            const std::size_t index = entries++;
            if (reported || is_slot_entry(entry)) return;
            reported = true;
            const auto slot_path = [&] {
                std::string p = field_path(4)();
                append_path_index(p, index);
                return p;
            };
            add(ErrorCode::record_shape, Severity::warning, field_pos(e, entry), slot_path, [&] {
                return fmt::format("expected slot entries slot:itemDefId:count (three decimal "
                                   "numbers), found {} (entry {})",
                                   excerpt(entry), index);
            });
        });
        std::uint64_t declared = 0;
        const std::string_view count = fields[3];
        auto [p, ec] = std::from_chars(count.data(), count.data() + count.size(), declared);
        const bool number =
            is_digits(count) && ec == std::errc() && p == count.data() + count.size();
        if (!number) {
            add(ErrorCode::record_shape, Severity::warning, field_pos(e, count), field_path(3),
                [&] {
                    return fmt::format("expected slotCount to be a decimal count, found {}",
                                       excerpt(count));
                });
        } else if (declared != entries) {
            add(ErrorCode::record_shape, Severity::warning, field_pos(e, count), field_path(3),
                [&] {
                    return fmt::format("expected {} slot {} (slotCount), found {}", declared,
                                       declared == 1 ? "entry" : "entries", entries);
                });
        }
    }

    // Adds a finding; the message is built only when the finding is kept (Findings keeps the
    // first k_max_kept of each severity), so a file with millions of them stays linear.
    // The node path is built the same way, only when needed: no allocation per record.
    template <class PathFn, class MessageFn>
    void add(ErrorCode code, Severity severity, Pos pos, PathFn&& path, MessageFn&& message) {
        if (findings_.count(severity) >= Findings::k_max_kept) {
            add_at(findings_, severity, code, pos, {}, {});
            return;
        }
        add_at(findings_, severity, code, pos, path(), message());
    }
    std::string_view data_;
    Findings& findings_;
    Sink& sink_;
    const std::uint64_t budget_;
    // What FlushToDisk would publish for the lines read so far: the marker line, then each
    // record escaped (LoadFromDisk's canonicalBytes).
    std::uint64_t canonical_ = k_marker.size() + 1;
    bool over_budget_ = false;
    std::string refusal_;
    std::uint32_t version_ = k_version_legacy;
    bool marker_like_ = false;
    std::uint32_t line_no_ = 0;
    std::size_t line_start_ = 0;
    std::uint64_t lines_ = 0;
    std::uint64_t index_ = 0;
    std::string decoded_;
    std::unordered_map<std::string_view, std::uint32_t> seen_; // key -> its last line
};

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
