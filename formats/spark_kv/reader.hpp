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

namespace sparksave::inline SPARKSAVE_ABI::spark_kv {

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
    Reader(std::string_view data, Findings& findings, Sink& sink)
        : data_(data), findings_(findings), sink_(sink) {}

    // Reads the whole store; false when a limit stopped the read before the end.
    bool run() {
        if (data_.size() > k_max_file_size) {
            error(ErrorCode::too_large, {1, 1},
                  fmt::format("expected at most {} bytes (64 MiB), found {}", k_max_file_size,
                              data_.size()));
            sink_.on_start(k_version_legacy, 0);
            sink_.on_end(true);
            return false;
        }
        // The marker line (formats/README.md §3): exactly `#!spark-kv-v2`, or the store is legacy.
        std::size_t pos = 0;
        bool final_lf = true;
        const std::size_t nl = data_.find('\n');
        const std::string_view first = data_.substr(0, nl == npos ? data_.size() : nl);
        if (first == k_marker) {
            version_ = k_version_v2;
            line_no_ = 1;
            pos = nl == npos ? data_.size() : nl + 1;
            final_lf = nl != npos;
        } else if (looks_like_marker(first)) {
            marker_like_ = true;
            std::string_view hint;
            if (first.ends_with('\r'))
                hint = " (CRLF line ends: the engine writes LF only)";
            else if (first.starts_with(k_utf8_bom))
                hint = " (a UTF-8 byte order mark before it)";
            error(ErrorCode::unsupported_version, {1, 1},
                  fmt::format("expected the marker line \"{}\", found {}{}: the engine does not "
                              "recognise it, skips it as a line without a TAB and reads the "
                              "store as legacy, decoding no escape",
                              k_marker, excerpt(first), hint));
        }
        sink_.on_start(version_, pos);
        bool whole = true;
        while (pos < data_.size()) {
            ++line_no_;
            line_start_ = pos;
            std::size_t end = data_.find('\n', pos);
            final_lf = end != npos;
            if (!final_lf) end = data_.size();
            if (!line(data_.substr(pos, end - pos))) {
                whole = false;
                break;
            }
            pos = final_lf ? end + 1 : end;
        }
        sink_.on_end(final_lf);
        return whole;
    }

  private:
    static constexpr std::size_t npos = std::string_view::npos;

    static std::uint32_t col(std::size_t zero_based) noexcept {
        return static_cast<std::uint32_t>(zero_based + 1);
    }
    // The place of a byte of the current line.
    Pos here(std::size_t offset) const noexcept { return {line_no_, col(offset - line_start_)}; }

    // One line (without its LF). False stops the read (a limit was reached).
    bool line(std::string_view text) {
        if (lines_ >= k_max_lines) {
            error(ErrorCode::limit_exceeded, {line_no_, 1},
                  fmt::format("expected at most {} lines, found more: reading stops here",
                              k_max_lines));
            return false;
        }
        ++lines_;
        const std::uint64_t index = index_++;
        const std::size_t tab = text.find('\t');
        if (tab == npos) {
            // formats/README.md §3: the engine skips a line without a TAB. An empty line loses
            // nothing; a marker-like first line was reported already.
            if (!text.empty() && !(marker_like_ && line_no_ == 1))
                add(
                    ErrorCode::missing_tab, Severity::warning, {line_no_, 1},
                    [&] { return index_path(index); },
                    [&] {
                        return fmt::format("expected KEY<TAB>VALUE, found a line without a TAB "
                                           "({}): the engine silently skips it, so this text is "
                                           "lost when the store is next written",
                                           excerpt(text));
                    });
            sink_.on_no_tab(LineEvent{text, line_start_, line_no_, index});
            return true;
        }
        RecordEvent e;
        e.raw = text;
        e.offset = line_start_;
        e.value_offset = line_start_ + tab + 1;
        e.line = line_no_;
        e.index = index;
        const std::string_view key_raw = text.substr(0, tab);
        const std::string_view value_raw = text.substr(tab + 1);
        e.key = key_raw;
        e.value = value_raw;
        std::size_t key_bad = 0, key_bad_at = 0, value_bad = 0, value_bad_at = 0;
        if (version_ == k_version_v2) {
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
        if (key_bad) bad_escape(key_raw, key_bad_at, key_bad, e.offset, "key", path);
        if (value_bad)
            bad_escape(value_raw, value_bad_at, value_bad, e.value_offset, "value", path);
        check_cr(key_raw, e.offset, "key", path);
        check_cr(value_raw, e.value_offset, "value", path);
        check_token(key_raw, e.offset, true, path);
        check_token(value_raw, e.value_offset, false, path);

        // formats/README.md §3: keys are unique, a later line replaces an earlier one.
        auto [it, inserted] = seen_.try_emplace(e.key, line_no_);
        if (!inserted) {
            const std::uint32_t lost = it->second;
            add(ErrorCode::duplicate_key, Severity::warning, {line_no_, 1}, path, [&] {
                return fmt::format("expected each key once, found {} again (it is on line {} "
                                   "too): the engine keeps the last line of a key, so line {} "
                                   "is lost",
                                   excerpt(e.key), lost, lost);
            });
            it->second = line_no_;
            e.repeated = true;
        }

        e.mmo = mmo_kind(e.key);
        if (e.mmo == Mmo::character) check_character(e, path);
        if (e.mmo == Mmo::inventory) check_inventory(e, path);
        sink_.on_record(e);
        return true;
    }

    // Decodes a v2 field into the reader's buffer (codec.hpp); `bad` counts the backslashes the
    // engine keeps verbatim, `first_bad` is the first one's index in `raw`.
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
        add(ErrorCode::bad_escape, Severity::error, here(base + at), path, [&] {
            const std::string more =
                count > 1 ? fmt::format(" ({} more in this {})", count - 1, what) : std::string();
            if (at + 1 >= raw.size())
                return fmt::format("expected `\\\\`, `\\t` or `\\n` after a backslash, found the "
                                   "end of the {}: the engine keeps the lone backslash{}",
                                   what, more);
            return fmt::format("expected `\\\\`, `\\t` or `\\n` after a backslash, found {}: the "
                               "engine keeps an unknown escape as it is (both characters), so a "
                               "writer that meant an escape gets its {} mangled{}",
                               display(raw.substr(at, 2), true), what, more);
        });
    }

    // formats/README.md §3: CR is not escaped, so a CR stays part of the key or value.
    template <class PathFn>
    void check_cr(std::string_view raw, std::size_t base, std::string_view what,
                  const PathFn& path) {
        const std::size_t cr = raw.find('\r');
        if (cr == npos) return;
        add(ErrorCode::carriage_return, Severity::warning, here(base + cr), path, [&] {
            const bool at_end = cr + 1 == raw.size();
            return fmt::format("expected no CR in a {}, found one {}: the engine keeps it as part "
                               "of the {} (CR is not escaped){}",
                               what, at_end ? "at its end" : "inside it", what,
                               at_end ? "; the file was probably converted to CRLF line ends" : "");
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
    // A finding about the whole file (no node path).
    void error(ErrorCode code, Pos pos, std::string message) {
        add(
            code, Severity::error, pos, [] { return std::string(); },
            [&] { return std::move(message); });
    }

    std::string_view data_;
    Findings& findings_;
    Sink& sink_;
    std::uint32_t version_ = k_version_legacy;
    bool marker_like_ = false;
    std::uint32_t line_no_ = 0;
    std::size_t line_start_ = 0;
    std::uint64_t lines_ = 0;
    std::uint64_t index_ = 0;
    std::string decoded_;
    std::unordered_map<std::string_view, std::uint32_t> seen_; // key -> its last line
};

} // namespace sparksave::spark_kv
