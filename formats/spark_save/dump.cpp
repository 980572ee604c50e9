// `dump` and `dump --json` of a whole `.spark_save` straight from the reader's events
// (FormatJson::dump): one traversal, the reader's, for both. The head (metadata) and the tail
// (custom state, trailing bytes, checksum) are small and go through the tree and the printers of
// the part-by-part dump (TreeSink; TextParts, JsonEmitter), so each of their lines has one
// printer; the entities, which are nearly all of a file, are written as they are read, with no
// tree: the same bytes as TextParts::item and JsonEmitter::write_item give for the entity's tree
// (tests/unit/test_dump_direct.cpp compares them over the corpus and every cut of a file).
//
// A property is the hot path (one a ~17 bytes of a typical file): when its key and value need
// no escaping (plain_scan::run_in, sixteen bytes at a time; in the generated bench saves all but
// the ~2 % of values that are JSON text, with quotes)
// it is copied into a staging buffer with fixed-size copies, else its strings go through the one
// escaper of each form (append_text_name and append_display; append_json_bytes).
#include "json_emitter.hpp"
#include "reader.hpp"
#include "tree_sink.hpp"

#include "api.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/plain_scan.hpp"
#include "sparksave/print.hpp"
#include "sparksave/version.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

namespace {

using namespace std::string_view_literals;

// What a dump hands to its writer at a time, at the least (the last block may be smaller).
constexpr std::size_t k_block = 1 << 20;

// A copy of `n` bytes the compiler cannot turn into `rep movs` (what GCC makes of a memcpy whose
// size it knows to be bounded: tens of cycles to start, for a copy of a few bytes): overlapping
// fixed-size moves up to 32 bytes, the library's memcpy beyond.
[[gnu::noinline]] void copy_long(char* p, const char* s, std::size_t n) {
    std::memcpy(p, s, n);
}
inline void copy_bytes(char* p, const char* s, std::size_t n) {
    if (n > 32) {
        copy_long(p, s, n);
    } else if (n >= 16) {
        std::memcpy(p, s, 16);
        std::memcpy(p + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
        std::memcpy(p, s, 8);
        std::memcpy(p + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        std::memcpy(p, s, 4);
        std::memcpy(p + n - 4, s + n - 4, 4);
    } else {
        for (std::size_t i = 0; i < n; ++i) p[i] = s[i];
    }
}

// The output: one buffer the entities are written into as they are read, handed to the writer
// whenever it holds k_block bytes or more (so each byte is written once, and memory stays at
// the buffer whatever the file's size). What the tree printers write (the head, an item's
// separator, the tail) goes to a string of their own first and is taken in (absorb) before the
// next entity's bytes and at the end. take() gives room for `most` bytes plus k_over more, so
// that a short string can be copied with one fixed-size (over-long) copy; strings that come
// from the file are read past their end only while that stays inside the file (`limit`).
class Stage {
  public:
    static constexpr std::size_t k_over = 32;
    // The most a fast-path piece may take; anything larger goes through append(), in pieces.
    static constexpr std::size_t k_piece = 1024;
    static constexpr std::size_t k_capacity = k_block + 2 * k_piece;

    Stage(const char* limit, const std::function<void(std::string_view)>& write)
        : limit_(limit), write_(write),
          buf_(std::make_unique_for_overwrite<char[]>(k_capacity + k_over)) {}

    // Room for `most` <= k_piece + 64 bytes at the returned place.
    char* take(std::size_t most) {
        if (k_capacity - n_ < most) hand_on();
        return buf_.get() + n_;
    }
    void done(char* end) { n_ = static_cast<std::size_t>(end - buf_.get()); }
    void append(std::string_view s) {
        while (!s.empty()) {
            const std::size_t part = std::min(s.size(), k_piece);
            char* p = take(part);
            copy_bytes(p, s.data(), part);
            done(p + part);
            s.remove_prefix(part);
        }
    }
    void absorb(std::string& text) {
        append(text);
        text.clear();
    }
    // Everything so far to the writer.
    void hand_on() {
        if (n_ != 0) write_(std::string_view(buf_.get(), n_));
        n_ = 0;
    }
    // Copies the file bytes `s` to `p`; returns the end.
    char* copy(char* p, std::string_view s) const {
        if (s.size() <= 16 && limit_ - s.data() >= 16)
            std::memcpy(p, s.data(), 16);
        else if (s.size() <= 32 && limit_ - s.data() >= 32)
            std::memcpy(p, s.data(), 32);
        else
            copy_bytes(p, s.data(), s.size());
        return p + s.size();
    }
    template <std::size_t N> static char* literal(char* p, const char (&text)[N]) {
        std::memcpy(p, text, N - 1);
        return p + N - 1;
    }
    // A property's fast path after its line's start: the key, `middle`, the value, `end`.
    template <std::size_t M, std::size_t E>
    char* pair(char* p, std::string_view key, const char (&middle)[M], std::string_view value,
               const char (&end)[E]) const {
        p = literal(copy(p, key), middle);
        return literal(copy(p, value), end);
    }
    bool plain(std::string_view s) const { return plain_scan::run_in(s, limit_) == s.size(); }

  private:
    const char* limit_;
    const std::function<void(std::string_view)>& write_;
    std::unique_ptr<char[]> buf_;
    std::size_t n_ = 0;
};

// The text tree's lines of an entity (print.cpp text_node over the entity's tree, at depth 1):
//   [3] "name":          (" {}" when it has no components)
//     Type:              (" {}" when it has no properties)
//       key: "value"
// A container's line ends when its first child comes or it ends (`pending_`).
class TextEntities {
  public:
    TextEntities(std::string& out, const char* limit,
                 const std::function<void(std::string_view)>& write)
        : out_(out), stage_(limit, write) {}

    void entity(std::string_view name, std::uint32_t index) {
        stage_.absorb(out_); // the head's lines
        open_ = true;
        scratch_.assign("  "sv);
        append_item_label(scratch_, index, name);
        scratch_ += ':';
        stage_.append(scratch_);
        pending_ = true;
    }
    void component(std::string_view type) {
        end_line();
        scratch_.assign("    "sv);
        append_text_name(scratch_, type);
        scratch_ += ':';
        stage_.append(scratch_);
        pending_ = true;
    }
    void property(std::string_view key, std::string_view value) {
        end_line();
        if (key.size() + value.size() <= Stage::k_piece && is_bare_name(key) &&
            stage_.plain(value)) {
            char* p = stage_.take(key.size() + value.size() + 16);
            p = Stage::literal(p, "      ");
            stage_.done(stage_.pair(p, key, ": \"", value, "\"\n"));
            return;
        }
        scratch_.assign("      "sv);
        append_text_name(scratch_, key);
        scratch_ += ": "sv;
        append_display(scratch_, value, true);
        scratch_ += '\n';
        stage_.append(scratch_);
    }
    void component_end() { close_line(); }
    void entity_end() {
        close_line();
        open_ = false;
    }
    // The read stopped inside an entity: its lines as far as it was read.
    void stop() {
        if (open_) entity_end();
    }
    // After the read: the tail's lines, and everything to the writer.
    void finish() {
        stage_.absorb(out_);
        stage_.hand_on();
    }

  private:
    // A container's line, when a child follows it.
    void end_line() {
        if (!pending_) return;
        pending_ = false;
        char* p = stage_.take(1);
        *p++ = '\n';
        stage_.done(p);
    }
    // A container's line, when it ends: empty unless a child came.
    void close_line() {
        if (!pending_) return;
        pending_ = false;
        char* p = stage_.take(4);
        p = Stage::literal(p, " {}\n");
        stage_.done(p);
    }

    std::string& out_;
    Stage stage_;
    std::string scratch_;
    bool pending_ = false;
    bool open_ = false;
};

// An entity's JSON as JsonEmitter::write_item lays it out (block objects and arrays, the pairs a
// line), from the indentation of an item of the entity list (JsonEmitter::k_item_depth):
//     {
//       "name": "...",
//       "components": [
//         {
//           "type": "...",
//           "properties": [
//             ["key", "value"]
//           ]
//         }
//       ]
//     }
// An empty list is `[]`, as JsonWriter closes it.
class JsonEntities {
  public:
    static_assert(JsonEmitter::k_item_depth == 2, "the indentation below is of depth 2");

    JsonEntities(JsonEmitter& emitter, std::string& out, const char* limit,
                 const std::function<void(std::string_view)>& write)
        : emitter_(emitter), out_(out), stage_(limit, write) {}

    void entity(std::string_view name, std::uint32_t) {
        open_ = true;
        emitter_.item_slot(); // the separator before the item
        stage_.absorb(out_);  // with the head before the first
        scratch_.assign("{\n      \"name\": "sv);
        append_json_bytes(scratch_, name);
        scratch_ += ",\n      \"components\": ["sv;
        stage_.append(scratch_);
        components_ = 0;
    }
    void component(std::string_view type) {
        in_component_ = true;
        scratch_.assign(components_++ ? ",\n        {\n          \"type\": "sv
                                      : "\n        {\n          \"type\": "sv);
        append_json_bytes(scratch_, type);
        scratch_ += ",\n          \"properties\": ["sv;
        stage_.append(scratch_);
        properties_ = 0;
    }
    void property(std::string_view key, std::string_view value) {
        // ",\n", twelve spaces and the pair's bracket, or the same without the comma before the
        // first pair; padded, so that sixteen bytes can be copied from either start.
        static constexpr char k_separator[32] = ",\n            [";
        constexpr std::size_t k_separator_size = 15;
        const bool first = properties_++ == 0;
        const char* separator = k_separator + first;
        const std::size_t separator_size = k_separator_size - first;
        if (key.size() + value.size() <= Stage::k_piece && stage_.plain(key) &&
            stage_.plain(value)) {
            char* p = stage_.take(key.size() + value.size() + 32);
            std::memcpy(p, separator, 16);
            p += separator_size;
            *p++ = '"';
            stage_.done(stage_.pair(p, key, "\", \"", value, "\"]"));
            return;
        }
        scratch_.assign(separator, separator_size);
        append_json_bytes(scratch_, key);
        scratch_ += ", "sv;
        append_json_bytes(scratch_, value);
        scratch_ += ']';
        stage_.append(scratch_);
    }
    void component_end() {
        in_component_ = false;
        char* p = stage_.take(32);
        p = properties_ ? Stage::literal(p, "\n          ]\n        }")
                        : Stage::literal(p, "]\n        }");
        stage_.done(p);
    }
    void entity_end() {
        char* p = stage_.take(32);
        p = components_ ? Stage::literal(p, "\n      ]\n    }") : Stage::literal(p, "]\n    }");
        stage_.done(p);
        open_ = false;
    }
    // The read stopped inside an entity: what was read of it, closed (write_item of its tree).
    void stop() {
        if (!open_) return;
        if (in_component_) component_end();
        entity_end();
    }
    // After the read: the tail, and everything to the writer.
    void finish() {
        stage_.absorb(out_);
        stage_.hand_on();
    }

  private:
    JsonEmitter& emitter_;
    std::string& out_;
    Stage stage_;
    std::string scratch_;
    std::size_t components_ = 0, properties_ = 0;
    bool in_component_ = false;
    bool open_ = false;
};

// The reader's sink: the entities' events to the printer, everything else to the tree of the
// head and the tail (TreeSink, whose consumer prints them).
template <class Printer> class DirectSink {
  public:
    DirectSink(Document& doc, Parts& consumer, Printer& printer)
        : tree_(doc, &consumer), printer_(printer) {}

    void finish() {
        printer_.stop();
        tree_.finish();
    }
    bool halted() const noexcept { return tree_.halted(); }
    std::optional<Error>& failure() noexcept { return tree_.failure(); }

    void on_header(std::uint32_t version) { tree_.on_header(version); }
    void on_metadata(std::string_view block, std::size_t offset, const MetadataBlock& meta) {
        tree_.on_metadata(block, offset, meta);
    }
    void on_entities_begin(std::uint32_t count, std::size_t offset) {
        tree_.on_entities_begin(count, offset);
    }
    void on_entity(std::string_view name, std::size_t, std::uint32_t index) {
        printer_.entity(name, index);
    }
    void on_component(std::string_view type, std::size_t) { printer_.component(type); }
    [[gnu::always_inline]] void on_property(std::string_view key, std::string_view value,
                                            std::size_t, std::size_t) {
        printer_.property(key, value);
    }
    void on_component_end(std::size_t) { printer_.component_end(); }
    void on_entity_end(std::size_t) { printer_.entity_end(); }
    void on_entities_end(std::size_t end) { tree_.on_entities_end(end); }
    void on_custom_state_begin(bool present, std::uint32_t declared, std::size_t offset) {
        tree_.on_custom_state_begin(present, declared, offset);
    }
    void on_pair(std::string_view key, std::string_view value, std::size_t offset,
                 std::size_t end) {
        tree_.on_pair(key, value, offset, end);
    }
    void on_custom_state_end(std::size_t end, std::uint32_t complete) {
        tree_.on_custom_state_end(end, complete);
    }
    void on_trailing(std::string_view bytes, std::size_t offset) {
        tree_.on_trailing(bytes, offset);
    }
    void on_checksum(std::uint32_t stored, std::size_t offset) {
        tree_.on_checksum(stored, offset);
    }

  private:
    TreeSink tree_;
    Printer& printer_;
};

// The text tree's parts of the head and the tail, after the dump's first two lines.
class TextHeadTail final : public Parts {
  public:
    explicit TextHeadTail(std::string& out) : out_(out), parts_(PrintOptions{}, out) {}
    Result<void> head(Document& doc, std::uint64_t items) override {
        append_text_heading(out_, k_format_name, doc.version());
        return parts_.head(doc, items);
    }
    Result<void> item(Document& doc, NodeId item, std::uint64_t index) override {
        return parts_.item(doc, item, index);
    }
    Result<void> tail(Document& doc) override { return parts_.tail(doc); }

  private:
    std::string& out_;
    TextParts parts_;
};

} // namespace

PartsRead dump(std::shared_ptr<const Source> source, bool json,
               const std::function<void(std::string_view)>& write) {
    const std::string_view bytes = source ? source->view() : std::string_view{};
    const char* limit = bytes.data() + bytes.size();
    Document doc(FormatId::spark_save, 0, source);
    std::string out; // what the tree printers write
    if (json) {
        JsonEmitter emitter(out);
        JsonEntities printer(emitter, out, limit, write);
        DirectSink<JsonEntities> sink(doc, emitter, printer);
        PartsRead read = read_parts(bytes, doc, sink, emitter);
        printer.finish();
        return read;
    }
    TextHeadTail parts(out);
    TextEntities printer(out, limit, write);
    DirectSink<TextEntities> sink(doc, parts, printer);
    PartsRead read = read_parts(bytes, doc, sink, parts);
    printer.finish();
    return read;
}

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
