// The one output layer of the command-line tool, in the spirit of llvm-readobj's ScopedPrinter
// and JSONScopedPrinter: a command chooses a Printer once per run (text, or JSON with --json)
// and emits every record through it, each record described once, in one function, for both
// back-ends:
// - its members (keys, values, nested objects and arrays) are what the JSON back-end writes;
//   the back-end does the commas, the layout and the escaping (lib's JsonWriter, the one
//   escaper of escape.hpp / json_out.hpp);
// - its lines are what the text back-end writes, at the indentation of the scopes open.
// Each back-end ignores the other's calls. A finished record goes to the sink at once, so a
// command streams its output while it works (a closed standard output is noticed at the next
// record: common.hpp record_status).
#pragma once

#include "sparksave/error.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/version.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sparksave::app {

// Colour for people (text only; the JSON back-end never colours).
enum class Style { ok, fail, error, warning, added, removed, changed, dim };
std::string paint(Style style, std::string_view text, bool enabled);
// "error: at offset ...: ..." / "warning: ..." (coloured when `color`).
std::string describe_finding(const Error& finding, bool color);

class Printer {
  public:
    // Where finished output goes (common.hpp out, standard error, a string).
    using Sink = std::function<void(std::string_view)>;
    // Appends JSON (one value) or text to the output, for what another function renders.
    using Append = std::function<void(std::string&)>;
    // The JSON a run prints: one record a line (JSON Lines), or one array of records, a record a
    // line (`[\n  {...},\n  {...}\n]\n`, `[]\n` with none).
    enum class JsonLayout { lines, array };

    virtual ~Printer() = default;
    Printer(const Printer&) = delete;
    Printer& operator=(const Printer&) = delete;

    // Closes what record(), object(), array() or indent() opened, when it goes out of scope.
    class [[nodiscard]] Scope {
      public:
        Scope(Scope&& other) noexcept;
        Scope& operator=(Scope&&) = delete;
        ~Scope();

      private:
        friend class Printer;
        enum class Kind { record, object, array, indent };
        Scope(Printer& printer, Kind kind, std::size_t columns = 0)
            : printer_(&printer), kind_(kind), columns_(columns) {}
        Printer* printer_;
        Kind kind_;
        std::size_t columns_;
    };

    // One record (a file's result, a change): JSON, an object of its own (a line of JSON
    // Lines, an element of the array); text, its lines. It goes to the sink when it ends.
    Scope record();
    // JSON: a member holding an object or an array, or (no key) an object element of an array.
    Scope object(std::string_view key);
    Scope object();
    Scope array(std::string_view key);
    // Text: the lines under it start `columns` further right.
    Scope indent(std::size_t columns);

    // JSON members of the object open (the text back-end writes none of them).
    virtual void string(std::string_view key, std::string_view utf8) = 0; // UTF-8 text
    virtual void bytes(std::string_view key, std::string_view bytes) = 0; // a string or base64
    virtual void number(std::string_view key, std::uint64_t value) = 0;
    void number(std::string_view key, std::optional<std::uint64_t> value); // null when none
    virtual void boolean(std::string_view key, bool value) = 0;
    virtual void null(std::string_view key) = 0;
    virtual void raw(std::string_view key, std::string_view json) = 0; // a number's exact text
    virtual void value(std::string_view key, const Append& json) = 0;
    // JSON elements of the array open; value() with no record open is a document of its own.
    virtual void bytes(std::string_view bytes) = 0;
    virtual void value(const Append& json) = 0;

    // Text lines (the JSON back-end writes none of them): the indentation, `text`, a newline.
    // With an Append, the line's text is built only by the text back-end.
    virtual void line(std::string_view text) = 0;
    virtual void line(const Append& text) = 0;
    // Text as it is (a table, a tree another function renders, with its own newlines).
    virtual void text(const Append& text) = 0;

    // Whether text may be coloured (--color, a terminal; never in JSON).
    virtual bool color() const noexcept = 0;

    // The end of the output: closes the JSON array, hands what is left to the sink.
    virtual void finish() = 0;

  protected:
    Printer() = default;
    virtual void open_record() = 0;
    virtual void close_record() = 0;
    virtual void open_object(std::string_view key, bool keyed) = 0;
    virtual void close_object() = 0;
    virtual void open_array(std::string_view key) = 0;
    virtual void close_array() = 0;
    virtual void shift(std::size_t columns, bool in) = 0;

  private:
    void close(Scope::Kind kind, std::size_t columns);
};

// The two back-ends.
std::unique_ptr<Printer> text_printer(Printer::Sink sink, bool color);
std::unique_ptr<Printer> json_printer(Printer::Sink sink,
                                      Printer::JsonLayout layout = Printer::JsonLayout::lines);

// One finding, for both back-ends: the JSON object of sparksave-verify(1) OUTPUT (severity, code,
// message, offset, line and column for text formats, path) as an element of the array open, and its
// text line (describe_finding) unless `text` is false (verify --quiet hides it; JSON shows every
// one).
void print_finding(Printer& p, const Error& finding, bool text = true);
// The JSON members of one finding (print_finding's object), in the object open.
void finding_members(Printer& p, const Error& finding);

} // namespace sparksave::app
