// The lossless JSON of a `.spark_save` part by part (json.cpp; its schema is described there).
#pragma once

#include "sparksave/format.hpp"
#include "sparksave/json_writer.hpp"
#include "sparksave/version.hpp"

#include <string>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_save {

// The JSON part by part (format.hpp Parts); to_json() runs it over a whole tree. The writer
// stays open across the parts: the head opens the root object (and the entity list), each item
// is one entity, the tail closes them.
class JsonEmitter final : public Parts {
  public:
    explicit JsonEmitter(std::string& out) : out_(out), w_(out) {}
    Result<void> head(Document& doc, std::uint64_t) override {
        write_head(doc);
        return {};
    }
    Result<void> item(Document& doc, NodeId entity, std::uint64_t) override {
        write_item(doc, entity);
        return {};
    }
    Result<void> tail(Document& doc) override {
        write_tail(doc);
        return {};
    }
    // The read stopped part-way: the JSON ends with "complete": false, as to_json() of a tree
    // that is not Document::complete() does.
    void stopped() override {
        complete_ = false;
        finish();
    }

    void write_head(const Document& doc);
    void write_item(const Document& doc, NodeId entity);
    // Where an entity the caller writes itself goes (dump.cpp): the separator before the next
    // item of the entity list is written, and the output returned; append exactly one entity
    // object, laid out as write_item lays it out (its lines indented from k_item_depth).
    std::string& item_slot() { return w_.raw_value(); }
    static constexpr int k_item_depth = 2;
    // Closes the JSON unless the tail is one the read stopped in (stopped() follows).
    void write_tail(const Document& doc);

  private:
    void close_entities();
    void finish();
    std::string& out_;
    JsonWriter w_;
    bool complete_ = true;
    bool entities_open_ = false;
    bool open_ = false;
};

} // namespace spark_save
SPARKSAVE_END_NAMESPACE
