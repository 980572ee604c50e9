// The byte map of a file (`dump --hex`, sparksave-dump(1) HEX DUMP): every byte of it belongs to
// exactly one region, a field the format's reader read (its node path, its role, its value) or an
// explicit gap: `<unread>` from where a damaged file's reading stopped to its end, `<trailing>`
// for bytes after the end of the structure. Each format lists its regions from its own reader's
// events (formats/<name>/regions.cpp), in file order, so no format rule is written twice.
#pragma once

// sparksave needs C++20: on an older standard this is the first error, before any include can
// fail, and it is given once (MSVC: _MSVC_LANG, as __cplusplus is 199711L without /Zc:__cplusplus).
#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L && !defined(SPARKSAVE_NEEDS_CXX20)
#define SPARKSAVE_NEEDS_CXX20
#error "sparksave needs C++20 (-std=c++20, /std:c++20, or CMake's cxx_std_20)"
#endif

#include "sparksave/version.hpp"

#include "sparksave/format.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE

// What a region's bytes are (sparksave-dump(1) HEX DUMP lists them). `unread` and `trailing` are
// the gaps; every other role is a field.
enum class Role : std::uint8_t {
    magic,      // the format's signature (`SPRK`, `TESSWLD\0`, `#!spark-kv-v2`)
    version,    // the format version field or line
    length,     // a length prefix or size field
    count,      // the number of items that follow
    name,       // a node's name: an entity name, a component type, a key
    string,     // a text value
    number,     // a number (binary, or its text in a text format)
    type,       // a type tag (a text archive's `__PGSA TYPE`, a GMSV component type id)
    bytes,      // opaque binary data (GMSV component data, an unnamed id)
    array,      // a packed array of scalars (a tess chunk's field)
    checksum,   // a stored CRC-32
    syntax,     // a text format's punctuation (`: `, ` {`, `}`, `,`, a TAB separator)
    whitespace, // indentation, blanks and line ends of a text format
    unread,     // a gap: from where the reading stopped to the end of the file
    trailing,   // a gap: bytes after the end of the structure
};
std::string_view role_name(Role role) noexcept;

// One region. The views are valid only during the call that hands it over.
struct Region {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::string_view path; // the node path (sparksave/node_path.hpp); "" is the root; a gap's is
                           // `<unread>` / `<trailing>`
    Role role = Role::bytes;
    std::string_view value; // the value read: a string's bytes, a number's decimal text (a
                            // binary number) or exact text (a text format), a summary of binary
                            // data (`f32[40]`, `8 bytes`); empty for a gap
};

inline constexpr std::string_view k_unread_path = "<unread>";
inline constexpr std::string_view k_trailing_path = "<trailing>";

using RegionSink = std::function<void(const Region&)>;

// Hands every region of `bytes`, read as `format`, to `sink`, in file order: the format's own
// (FormatJson::regions), then `<unread>` for whatever they leave at the end. A format that has
// no regions function gives one `<unread>` region. Returns the read's findings (a damaged file's
// errors: where and why the reading stopped).
Findings file_regions(const FormatInfo& format, std::string_view bytes, const RegionSink& sink);

// The text of `dump --hex`: rows of 16 bytes (offset, hex, ASCII), each followed by the fields
// that start in it (`path = value  (role)`; syntax and whitespace are not listed, only painted).
// `[begin, end)` limits the rows to the bytes in it; `color` paints the bytes of each role (ANSI).
// Regions are taken in file order through region(); the text goes to `out`, in blocks, with the
// rest after finish().
class HexDump {
  public:
    struct Options {
        std::uint64_t begin = 0;
        std::uint64_t end = ~std::uint64_t{0};
        bool color = false;
    };
    HexDump(std::string_view bytes, Options options, std::function<void(std::string_view)> out);
    void region(const Region& r);
    void finish();

  private:
    void list(const Region& r, std::uint64_t shown_from);
    void open_row(std::uint64_t row);
    void row_text();
    void flush_row();
    void drain();

    std::string_view bytes_;
    Options o_;
    std::function<void(std::string_view)> out_;
    std::uint64_t row_ = 0; // the offset of the row being filled
    bool row_open_ = false;
    std::array<Role, 16> roles_{};
    std::string fields_; // the row's field texts, one a line, without indentation
    std::size_t field_count_ = 0;
    std::string text_;
};

// `dump --hex --json`: one JSON document, {"schemaVersion", "format", "size", "regions": [...]}
// (man/schemas/dump-hex.schema.json), the regions in [begin, end) (a region that overlaps it),
// each {offset, length, path, role, value} (value null for a gap; a string, or {"base64"} when its
// bytes are not UTF-8). The text goes to `out` in blocks.
class HexJson {
  public:
    HexJson(std::string_view format, std::uint64_t size, std::uint64_t begin, std::uint64_t end,
            std::uint64_t schema_version, std::function<void(std::string_view)> out);
    void region(const Region& r);
    void finish();

  private:
    std::function<void(std::string_view)> out_;
    std::uint64_t begin_;
    std::uint64_t end_;
    bool first_ = true;
    std::string text_;
};

SPARKSAVE_END_NAMESPACE
