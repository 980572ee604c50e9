// The byte map of a text archive (sparksave/regions.hpp): the reader's events (reader.hpp), each
// name, class name, type and value where the reader found it in its line, under the node path
// of the tree read.cpp builds; the text between them is syntax (`: `, `__PGSA`, ` {`, `}`, `,`)
// and whitespace (indentation, line ends).
#include "api.hpp"
#include "reader.hpp"

#include "sparksave/region_emitter.hpp"
#include "sparksave/version.hpp"

#include <vector>

SPARKSAVE_BEGIN_NAMESPACE
namespace text_archive {

namespace {

class RegionsSink : public SinkDefaults {
  public:
    explicit RegionsSink(RegionEmitter& e) : e_(e) { open_.emplace_back(); }

    void on_version(std::string_view line, bool) { e_.text(line, "", Role::version, ""); }

    void on_attribute(const AttributeEvent& a) {
        const std::size_t parent = child_path(a.name);
        e_.between(a.offset, std::string_view(path_).substr(0, parent));
        if (a.named) e_.text(a.name, path_, Role::name, path_);
        e_.text(a.type, path_, Role::type, path_);
        const bool number = a.value_type == ValueType::integer ||
                            a.value_type == ValueType::unsigned_integer ||
                            a.value_type == ValueType::floating;
        e_.text(a.value, path_, number ? Role::number : Role::string, path_);
        if (a.end >= e_.at()) e_.between(a.end, path_);
        path_.resize(parent);
    }

    void on_class(const ClassEvent& c) {
        const std::size_t parent = child_path(c.name);
        e_.between(c.offset, std::string_view(path_).substr(0, parent));
        if (c.named) e_.text(c.name, path_, Role::name, path_);
        e_.text(c.class_name, path_, Role::type, path_);
        open_.emplace_back();
        open_.back().parent = parent;
        open_.back().list = c.list;
    }

    void on_close(std::size_t end) {
        if (open_.size() <= 1) return;
        if (end >= e_.at()) e_.between(end, path_);
        path_.resize(open_.back().parent);
        open_.pop_back();
    }

    // After a read to the end: the text after the last event (line ends, blank lines).
    void finish() {
        path_.resize(0);
        e_.between(e_.data().size(), path_);
    }

  private:
    // Appends the next child's step to path_ (by index under a Vector, else by name: ChildSteps);
    // returns the length of the parent's path.
    std::size_t child_path(std::string_view name) {
        Open& o = open_.back();
        const std::size_t parent = path_.size();
        if (o.list)
            o.children.append_index(path_);
        else
            o.children.append(path_, name);
        return parent;
    }

    struct Open {
        std::size_t parent = 0; // the length of the path of the class's parent
        bool list = false;
        ChildSteps children;
    };
    RegionEmitter& e_;
    std::string path_;
    std::vector<Open> open_;
};

} // namespace

Findings regions(std::string_view bytes, const RegionSink& sink) {
    RegionEmitter e(bytes, sink);
    RegionsSink regions(e);
    Findings findings;
    Reader<RegionsSink> reader(bytes, findings, regions);
    if (reader.run()) regions.finish();
    return findings;
}

} // namespace text_archive
SPARKSAVE_END_NAMESPACE
