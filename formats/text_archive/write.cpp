// Writing the tree back to text archive bytes, exactly as the engine's writer lays them out
// (formats/README.md §2; the tree: spec.hpp): one TAB per level, a comma after every child but the
// last, `},` after a nested class followed by a sibling, LF line ends, values verbatim.
// The walk keeps its own stack, so a deep tree cannot overflow the call stack.
#include "spec.hpp"

#include "api.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

namespace {

class Writer {
  public:
    explicit Writer(const Document& doc) : doc_(doc) {
        out_.reserve(doc.source_bytes().size() + 64);
    }

    Result<std::string> run() {
        const NodeId root = doc_.root();
        std::string_view version = doc_.value(root);
        if (version.empty() && doc_.version() == k_current_version) version = k_version_line;
        if (version.find('\n') != std::string_view::npos)
            return fail(root, "expected a version line without a line feed, found " +
                                  display(version, true));
        out_ += version;
        out_ += '\n';
        for (NodeId entry : doc_.children(root)) {
            if (auto r = child(entry, 0); !r) return r.error();
            while (!stack_.empty()) {
                Open& top = stack_.back();
                if (top.next != k_no_node) {
                    const NodeId c = top.next;
                    const std::size_t depth = top.depth + 1;
                    top.next = doc_.node(c).next_sibling;
                    if (auto r = child(c, depth); !r) return r.error(); // may grow stack_
                    continue;
                }
                const Open done = top;
                stack_.pop_back();
                out_.append(done.depth, '\t');
                out_ += '}';
                end_line(done.node, done.depth);
            }
        }
        return std::move(out_);
    }

  private:
    struct Open {
        NodeId node;
        NodeId next; // the next child to write
        std::size_t depth;
    };

    // Writes the start of `node` at `depth` (all of it, for an attribute).
    Result<void> child(NodeId node, std::size_t depth) {
        const Node& n = doc_.node(node);
        out_.append(depth, '\t');
        const std::string_view name = doc_.name(node);
        if (!name.empty() || (n.flags & k_flag_empty_name)) {
            if (name.find('\n') != std::string_view::npos)
                return fail(node,
                            "expected a name without a line feed, found " + display(name, true));
            out_ += name;
            out_ += k_name_separator;
        }
        if (n.tag == 0)
            return fail(node, n.kind == NodeKind::scalar ? "expected a type name, found none"
                                                         : "expected a class name, found none");
        const std::string_view tag = doc_.tag(node);
        switch (n.kind) {
        case NodeKind::scalar:
            if (tag.find('{') != std::string_view::npos || tag.find('\n') != std::string_view::npos)
                return fail(node, "expected a type name without `{` or a line feed, found " +
                                      display(tag, true));
            out_ += k_attribute_prefix;
            out_ += tag;
            out_ += " {";
            out_ += doc_.value(node); // verbatim (spec.hpp: there is no escaping)
            out_ += '}';
            end_line(node, depth);
            return {};
        case NodeKind::object:
        case NodeKind::list:
            if (tag.find('\n') != std::string_view::npos)
                return fail(node, "expected a class name without a line feed, found " +
                                      display(tag, true));
            out_ += tag;
            out_ += " {\n";
            stack_.push_back({node, n.first_child, depth});
            return {};
        case NodeKind::bytes:
        case NodeKind::column:
            break;
        }
        return fail(node, "expected an attribute or a class, found binary data");
    }

    // After a child: `,` when a sibling follows (never at the top level), then LF.
    void end_line(NodeId node, std::size_t depth) {
        if (depth > 0 && doc_.node(node).next_sibling != k_no_node) out_ += ',';
        out_ += '\n';
    }

    Error fail(NodeId node, std::string message) {
        return make_error(ErrorCode::bad_value, std::move(message), k_no_offset,
                          path_of(doc_, node));
    }

    const Document& doc_;
    std::string out_;
    std::vector<Open> stack_;
};

} // namespace

Result<std::string> write(const Document& doc) {
    return Writer(doc).run();
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
