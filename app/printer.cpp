// The output layer's two back-ends (printer.hpp): text lines, and JSON through lib's JsonWriter.
#include "printer.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cassert>
#include <utility>

namespace sparksave::app {

std::string paint(Style style, std::string_view text, bool enabled) {
    if (!enabled) return std::string(text);
    std::string_view code;
    switch (style) {
    case Style::ok:
        code = "32";
        break;
    case Style::fail:
        code = "1;31";
        break;
    case Style::error:
        code = "31";
        break;
    case Style::warning:
        code = "33";
        break;
    case Style::added:
        code = "32";
        break;
    case Style::removed:
        code = "31";
        break;
    case Style::changed:
        code = "33";
        break;
    case Style::dim:
        code = "2";
        break;
    }
    return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}

std::string describe_finding(const Error& f, bool color) {
    Style style = f.severity == Severity::error     ? Style::error
                  : f.severity == Severity::warning ? Style::warning
                                                    : Style::dim;
    return paint(style, severity_name(f.severity), color) + ": " + f.describe();
}

Printer::Scope::Scope(Scope&& other) noexcept
    : printer_(std::exchange(other.printer_, nullptr)), kind_(other.kind_),
      columns_(other.columns_) {}

Printer::Scope::~Scope() {
    if (printer_) printer_->close(kind_, columns_);
}

Printer::Scope Printer::record() {
    open_record();
    return Scope(*this, Scope::Kind::record);
}

Printer::Scope Printer::object(std::string_view key) {
    open_object(key, true);
    return Scope(*this, Scope::Kind::object);
}

Printer::Scope Printer::object() {
    open_object({}, false);
    return Scope(*this, Scope::Kind::object);
}

Printer::Scope Printer::array(std::string_view key) {
    open_array(key);
    return Scope(*this, Scope::Kind::array);
}

Printer::Scope Printer::indent(std::size_t columns) {
    shift(columns, true);
    return Scope(*this, Scope::Kind::indent, columns);
}

void Printer::close(Scope::Kind kind, std::size_t columns) {
    switch (kind) {
    case Scope::Kind::record:
        close_record();
        break;
    case Scope::Kind::object:
        close_object();
        break;
    case Scope::Kind::array:
        close_array();
        break;
    case Scope::Kind::indent:
        shift(columns, false);
        break;
    }
}

void Printer::number(std::string_view key, std::optional<std::uint64_t> value) {
    if (value)
        number(key, *value);
    else
        null(key);
}

namespace {

// Text: lines at the indentation of the scopes open; a record's lines go out when it ends,
// lines outside a record at once.
class TextPrinter final : public Printer {
  public:
    TextPrinter(Sink sink, bool color) : sink_(std::move(sink)), color_(color) {}

    void string(std::string_view, std::string_view) override {}
    void bytes(std::string_view, std::string_view) override {}
    void number(std::string_view, std::uint64_t) override {}
    void boolean(std::string_view, bool) override {}
    void null(std::string_view) override {}
    void raw(std::string_view, std::string_view) override {}
    void value(std::string_view, const Append&) override {}
    void bytes(std::string_view) override {}
    void value(const Append&) override {}

    void line(std::string_view text) override {
        buffer_.append(indent_, ' ');
        buffer_ += text;
        buffer_ += '\n';
        if (records_ == 0) emit();
    }
    void line(const Append& text) override {
        buffer_.append(indent_, ' ');
        text(buffer_);
        buffer_ += '\n';
        if (records_ == 0) emit();
    }
    void text(const Append& append) override {
        append(buffer_);
        if (records_ == 0) emit();
    }
    bool color() const noexcept override { return color_; }
    void finish() override { emit(); }

  protected:
    void open_record() override { ++records_; }
    void close_record() override {
        assert(records_ > 0);
        if (--records_ == 0) emit();
    }
    void open_object(std::string_view, bool) override {}
    void close_object() override {}
    void open_array(std::string_view) override {}
    void close_array() override {}
    void shift(std::size_t columns, bool in) override {
        assert(in || indent_ >= columns);
        indent_ = in ? indent_ + columns : indent_ - columns;
    }

  private:
    void emit() {
        if (buffer_.empty()) return;
        sink_(buffer_);
        buffer_.clear();
    }

    Sink sink_;
    bool color_;
    std::string buffer_;
    std::size_t indent_ = 0;
    std::size_t records_ = 0;
};

// JSON: each record an object on a line of its own (JSON Lines), or an element of the one
// array of the output; a record goes out when it ends.
class JsonPrinter final : public Printer {
  public:
    JsonPrinter(Sink sink, JsonLayout layout)
        : sink_(std::move(sink)), layout_(layout), json_(buffer_) {
        if (layout_ == JsonLayout::array) json_.begin_array(JsonWriter::Layout::block);
    }

    void string(std::string_view key, std::string_view utf8) override {
        json_.key(key).string(utf8);
    }
    void bytes(std::string_view key, std::string_view bytes) override {
        json_.key(key).bytes(bytes);
    }
    void number(std::string_view key, std::uint64_t value) override {
        json_.key(key).number(value);
    }
    void boolean(std::string_view key, bool value) override { json_.key(key).boolean(value); }
    void null(std::string_view key) override { json_.key(key).null(); }
    void raw(std::string_view key, std::string_view json) override { json_.key(key).raw(json); }
    void value(std::string_view key, const Append& json) override {
        json(json_.key(key).raw_value());
    }
    void bytes(std::string_view bytes) override { json_.bytes(bytes); }
    void value(const Append& json) override {
        json(json_.raw_value());
        if (json_.depth() == outer()) emit();
    }

    void line(std::string_view) override {}
    void line(const Append&) override {}
    void text(const Append&) override {}
    bool color() const noexcept override { return false; }

    void finish() override {
        if (layout_ == JsonLayout::array && !finished_) {
            json_.end_array();
            buffer_ += '\n';
        }
        finished_ = true;
        emit();
    }

  protected:
    void open_record() override { json_.begin_object(); }
    void close_record() override {
        json_.end_object();
        if (json_.depth() != outer()) return; // a record inside a record: a member of it
        if (layout_ == JsonLayout::lines) buffer_ += '\n';
        emit();
    }
    void open_object(std::string_view key, bool keyed) override {
        if (keyed) json_.key(key);
        json_.begin_object();
    }
    void close_object() override { json_.end_object(); }
    void open_array(std::string_view key) override { json_.key(key).begin_array(); }
    void close_array() override { json_.end_array(); }
    void shift(std::size_t, bool) override {}

  private:
    // The containers open outside every record: the array of the output, or none.
    std::size_t outer() const noexcept { return layout_ == JsonLayout::array ? 1 : 0; }
    void emit() {
        if (buffer_.empty()) return;
        sink_(buffer_);
        buffer_.clear();
    }

    Sink sink_;
    JsonLayout layout_;
    std::string buffer_;
    JsonWriter json_;
    bool finished_ = false;
};

} // namespace

std::unique_ptr<Printer> text_printer(Printer::Sink sink, bool color) {
    return std::make_unique<TextPrinter>(std::move(sink), color);
}

std::unique_ptr<Printer> json_printer(Printer::Sink sink, Printer::JsonLayout layout) {
    return std::make_unique<JsonPrinter>(std::move(sink), layout);
}

void finding_members(Printer& p, const Error& f) {
    p.string("severity", severity_name(f.severity));
    p.string("code", code_name(f.code));
    p.string("message", f.message);
    p.number("offset", f.has_offset() ? std::optional<std::uint64_t>(f.offset) : std::nullopt);
    if (f.line != 0) { // text formats
        p.number("line", f.line);
        p.number("column", f.column);
    }
    p.string("path", f.path);
}

void print_finding(Printer& p, const Error& f, bool text) {
    {
        auto object = p.object();
        finding_members(p, f);
    }
    if (text) p.line([&](std::string& out) { out += describe_finding(f, p.color()); });
}

} // namespace sparksave::app
