// Component nodes of the GMSV tree: JSON data as a subtree (tree.hpp).
#include "tree.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/json_reader.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <charconv>

SPARKSAVE_BEGIN_NAMESPACE
namespace gmsv {

namespace {

bool is_ws(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The deepest nesting of objects and arrays, strings skipped; stops counting past `limit`.
std::size_t nesting(std::string_view t, std::size_t limit) noexcept {
    std::size_t depth = 0, deepest = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '"') {
            for (++i; i < t.size() && t[i] != '"'; ++i)
                if (t[i] == '\\') ++i;
        } else if (c == '{' || c == '[') {
            if (++depth > deepest && (deepest = depth) > limit) return deepest;
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

// Builds nodes for already-validated JSON text. The text is a copy, so that appending decoded
// strings to the document's arena cannot move it; node strings are positions in `base`, the Str
// of the data in the document.
class JsonTree {
  public:
    // `file_offset`: where the text lies in the file, when it was read from it (node spans).
    JsonTree(Document& doc, std::string text, Str base, std::optional<std::uint32_t> file_offset)
        : doc_(doc), text_(std::move(text)), reader_(text_), base_(base),
          file_offset_(file_offset) {}

    // Adds the members of the object at `at` as children of `parent`; returns where it ends.
    std::size_t members_of(NodeId parent, std::size_t at) {
        NodeId prev = k_no_node;
        at = skip(at + 1);
        if (text_[at] == '}') return at + 1;
        for (;;) {
            const std::size_t key_end = string_end(at);
            const Str key = string(at, key_end);
            at = skip(skip(key_end) + 1); // ':'
            at = skip(value(parent, prev, key, at));
            if (text_[at] == '}') return at + 1;
            at = skip(at + 1); // ','
        }
    }

  private:
    // Adds the value at `at` named `name` after `prev` under `parent`; returns where it ends.
    std::size_t value(NodeId parent, NodeId& prev, Str name, std::size_t at) {
        const char c = text_[at];
        NodeId id;
        std::size_t end;
        if (c == '{') {
            id = doc_.create(NodeKind::object, name);
            link(parent, prev, id);
            return spanned(id, at, members_of(id, at));
        }
        if (c == '[') {
            id = doc_.create(NodeKind::list, name);
            link(parent, prev, id);
            NodeId last = k_no_node;
            std::size_t i = skip(at + 1);
            if (text_[i] == ']') return spanned(id, at, i + 1);
            for (;;) {
                i = skip(value(id, last, {}, i));
                if (text_[i] == ']') return spanned(id, at, i + 1);
                i = skip(i + 1); // ','
            }
        }
        if (c == '"') {
            end = string_end(at);
            id = doc_.create(NodeKind::scalar, name, string(at, end), {}, ValueType::string);
        } else if (c == 't' || c == 'f' || c == 'n') {
            end = at + (c == 'f' ? 5 : 4);
            // A JSON literal, shown bare like a boolean (null included).
            id = doc_.create(NodeKind::scalar, name, slice(at, end), {}, ValueType::boolean);
        } else {
            end = at;
            bool fraction = false;
            while (end < text_.size() &&
                   (text_[end] == '-' || text_[end] == '+' || text_[end] == '.' ||
                    text_[end] == 'e' || text_[end] == 'E' ||
                    (text_[end] >= '0' && text_[end] <= '9'))) {
                fraction |= text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E';
                ++end;
            }
            id = doc_.create(NodeKind::scalar, name, slice(at, end), {},
                             fraction ? ValueType::floating : ValueType::integer);
        }
        link(parent, prev, id);
        return spanned(id, at, end);
    }

    // Gives `id` the span [at, end) of the text in the file, when the text is in the file.
    std::size_t spanned(NodeId id, std::size_t at, std::size_t end) {
        if (file_offset_)
            doc_.node(id).span = Span{*file_offset_ + static_cast<std::uint32_t>(at),
                                      static_cast<std::uint32_t>(end - at)};
        return end;
    }

    void link(NodeId parent, NodeId& prev, NodeId id) {
        doc_.link_after(parent, prev, id);
        prev = id;
    }

    // A string's content: a slice of the data when it has no escapes, else decoded text.
    Str string(std::size_t at, std::size_t end) {
        if (std::string_view(text_).substr(at + 1, end - at - 2).find('\\') ==
            std::string_view::npos)
            return slice(at + 1, end - 1);
        std::string decoded;
        reader_.decode(json::Value{json::Kind::string, at, end}, decoded);
        return doc_.text(decoded);
    }
    Str slice(std::size_t at, std::size_t end) const {
        if (end == at) return {};
        return Str{base_.off + static_cast<std::uint32_t>(at),
                   static_cast<std::uint32_t>(end - at)};
    }
    std::size_t skip(std::size_t at) const {
        while (at < text_.size() && is_ws(text_[at])) ++at;
        return at;
    }
    std::size_t string_end(std::size_t at) const {
        ++at;
        while (text_[at] != '"') at += text_[at] == '\\' ? 2 : 1;
        return at + 1;
    }
    Document& doc_;
    std::string text_;
    json::Reader reader_;
    Str base_;
    std::optional<std::uint32_t> file_offset_;
};

// The raw key (quotes included) of the member whose value starts at `value` in `text`, or empty
// when the text before the value is not `"key"` `:`.
std::string_view key_before(std::string_view text, std::size_t value) {
    std::size_t i = value;
    while (i > 0 && is_ws(text[i - 1])) --i;
    if (i == 0 || text[i - 1] != ':') return {};
    --i;
    while (i > 0 && is_ws(text[i - 1])) --i;
    if (i < 2 || text[i - 1] != '"') return {};
    const std::size_t end = i;
    // The opening quote: the nearest one before that no odd run of backslashes escapes.
    for (std::size_t k = end - 1; k-- > 0;) {
        if (text[k] != '"') continue;
        std::size_t backslashes = 0;
        while (backslashes < k && text[k - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return text.substr(k, end - k);
    }
    return {};
}

// Whether the raw JSON string `raw` is the text `name`.
bool key_is(std::string_view raw, std::string_view name) {
    if (raw.find('\\') == std::string_view::npos) return raw.substr(1, raw.size() - 2) == name;
    json::Reader reader(raw);
    auto v = reader.validate();
    return v && v->kind == json::Kind::string && reader.decoded(*v) == name;
}

} // namespace

bool is_json_payload(std::string_view data) {
    if (data.size() < 2 || data.front() != '{' || data.back() != '}') return false;
    if (nesting(data, k_max_json_depth) > k_max_json_depth) return false;
    json::Reader reader(data);
    auto root = reader.validate();
    return root && root->kind == json::Kind::object && root->begin == 0 && root->end == data.size();
}

std::string component_name(std::uint16_t type) {
    if (type > 0 && type < k_type_names.size()) return std::string(k_type_names[type]);
    return fmt::format("type{}", type);
}

std::optional<std::uint16_t> component_type(std::string_view name) {
    for (std::uint16_t t = 1; t < k_type_names.size(); ++t)
        if (name == k_type_names[t]) return t;
    if (!name.starts_with("type") || name.size() == 4) return std::nullopt;
    std::string_view digits = name.substr(4);
    if (digits.size() > 1 && digits[0] == '0') return std::nullopt; // one spelling per id
    std::uint16_t t = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t);
    if (ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
    if (t > 0 && t < k_type_names.size()) return std::nullopt; // a known id has its name
    return t;
}

void set_payload(Document& doc, NodeId component) {
    doc.node(component).first_child = k_no_node;
    const Str data = doc.node(component).value;
    const std::string_view bytes = doc.str(data);
    if (!is_json_payload(bytes)) {
        doc.node(component).kind = NodeKind::bytes;
        doc.node(component).tag = 0;
        return;
    }
    doc.node(component).kind = NodeKind::object;
    doc.node(component).tag = doc.tag_id(k_json_tag);
    std::optional<std::uint32_t> file_offset;
    if (!(data.off & Str::k_arena_bit) && doc.node(component).span.valid()) file_offset = data.off;
    JsonTree(doc, std::string(bytes), data, file_offset).members_of(component, 0);
}

void replace_payload(Document& doc, NodeId component, std::string_view data) {
    const Str value = data.empty() ? Str{} : doc.text(std::string(data));
    doc.node(component).value = value;
    doc.node(component).span = Span{};
    set_payload(doc, component);
}

Result<void> reencode(Document& doc, NodeId component) {
    if (doc.node(component).kind != NodeKind::object) return {};
    const std::string_view source = doc.source_bytes();
    std::string out = "{";
    for (NodeId m : doc.children(component)) {
        if (out.size() > 1) out += ',';
        const Node& n = doc.node(m);
        const std::string_view name = doc.name(m);
        const bool spanned = n.span.valid() && n.span.offset <= source.size() &&
                             n.span.length <= source.size() - n.span.offset;
        const std::string_view key = spanned ? key_before(source, n.span.offset) : "";
        if (!key.empty() && key_is(key, name))
            out += key;
        else
            append_json_string(out, name);
        out += ':';
        if (spanned)
            out += source.substr(n.span.offset, n.span.length);
        else if (n.kind == NodeKind::scalar && n.type != ValueType::string &&
                 n.type != ValueType::none)
            out += doc.value(m);
        else if (n.kind == NodeKind::scalar)
            append_json_string(out, doc.value(m));
        else
            return make_error(ErrorCode::internal, "a JSON member without its text in the save",
                              k_no_offset, path_of(doc, m));
    }
    out += '}';
    replace_payload(doc, component, out);
    return {};
}

} // namespace gmsv
SPARKSAVE_END_NAMESPACE
