// What every format's regions function (formats/<name>/regions.cpp) shares: handing regions of
// one file to a RegionSink in file order (sparksave/regions.hpp). A format's region sink hears
// its reader's events and says, for each field, where it is, what node it belongs to and what it
// is; this keeps the place reached, splits text between fields into whitespace and syntax runs,
// and formats numbers.
#pragma once

#include "sparksave/node_path.hpp"
#include "sparksave/regions.hpp"
#include "sparksave/version.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

SPARKSAVE_BEGIN_NAMESPACE

// The steps that name the children of one node, in order, so that each path names its own node:
// a child's name, or its index under the parent when an earlier sibling has the same name (the
// name would find that one: node_path.hpp resolve()).
class ChildSteps {
  public:
    void clear() {
        index_ = 0;
        small_.clear();
        if (!set_.empty()) set_.clear();
    }
    // Appends the next child's step to `path`.
    void append(std::string& path, std::string_view name) {
        if (repeated(name))
            append_path_index(path, index_);
        else
            append_path_name(path, name);
        ++index_;
    }
    // The next child's index step, for a child of a list.
    void append_index(std::string& path) { append_path_index(path, index_++); }

  private:
    bool repeated(std::string_view name) {
        if (small_.size() < k_linear) {
            for (const auto& s : small_)
                if (s == name) return true;
            small_.emplace_back(name);
            if (small_.size() == k_linear) set_.insert(small_.begin(), small_.end());
            return false;
        }
        return !set_.emplace(name).second;
    }
    static constexpr std::size_t k_linear = 16;
    std::uint64_t index_ = 0;
    std::vector<std::string> small_;
    std::unordered_set<std::string> set_;
};

class RegionEmitter {
  public:
    RegionEmitter(std::string_view data, const RegionSink& sink) : data_(data), sink_(sink) {}

    std::string_view data() const noexcept { return data_; }
    std::size_t at() const noexcept { return at_; }
    // The file offset of a view into the file.
    std::size_t offset_of(std::string_view in_file) const noexcept {
        return static_cast<std::size_t>(in_file.data() - data_.data());
    }

    // A field of `length` bytes at `offset` (which must be where the last one ended; a field of
    // no bytes is not a region).
    void field(std::size_t offset, std::size_t length, std::string_view path, Role role,
               std::string_view value) {
        if (length == 0) return;
        sink_(Region{offset, length, path, role, value});
        at_ = offset + length;
    }
    // A field whose value is the number `value`, in decimal.
    void number(std::size_t offset, std::size_t length, std::string_view path, Role role,
                std::uint64_t value) {
        char buf[24];
        const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
        field(offset, length, path, role,
              std::string_view(buf, static_cast<std::size_t>(end - buf)));
    }
    // A field that is a view into the file, its bytes its value, after the text between the last
    // field and it (between(), under `gap_path`). Nothing when the view is not in the file after
    // the last field (a text the reader made, or an empty one); false then.
    bool text(std::string_view in_file, std::string_view path, Role role,
              std::string_view gap_path) {
        if (in_file.empty() || in_file.data() < data_.data() + at_ ||
            in_file.data() + in_file.size() > data_.data() + data_.size())
            return false;
        between(offset_of(in_file), gap_path);
        field(offset_of(in_file), in_file.size(), path, role, in_file);
        return true;
    }
    // The bytes from the last field up to `offset` (a text format's separators): runs of blanks
    // and line ends are whitespace, other runs syntax, under `path`.
    void between(std::size_t offset, std::string_view path) {
        while (at_ < offset) {
            const bool blank = is_blank(data_[at_]);
            std::size_t end = at_ + 1;
            while (end < offset && is_blank(data_[end]) == blank) ++end;
            field(at_, end - at_, path, blank ? Role::whitespace : Role::syntax,
                  data_.substr(at_, end - at_));
        }
    }
    // The rest of the file from the last field, as a gap of `role` (`<trailing>` bytes after the
    // structure; `<unread>` is added by file_regions itself).
    void gap_to(std::size_t end, Role role) {
        if (end > at_)
            field(at_, end - at_, role == Role::trailing ? k_trailing_path : k_unread_path, role,
                  {});
    }

  private:
    static bool is_blank(char c) noexcept {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    }
    std::string_view data_;
    const RegionSink& sink_;
    std::size_t at_ = 0;
};

SPARKSAVE_END_NAMESPACE
