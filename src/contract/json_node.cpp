#include "contract/json_node.h"

#include <limits>
#include <set>

#include "wgk/error.h"

namespace wgk::contract::detail {
namespace {

constexpr int kMaxDepth = 64;

// Where the parser callback is, to name the object that holds a duplicate key.
struct Frame {
  bool array = false;
  std::size_t index = 0;
  std::string key;
  std::set<std::string, std::less<>> keys;
};

std::string frames_path(const std::vector<Frame>& frames, std::size_t count) {
  std::string path;
  for (std::size_t i = 0; i + 1 < count; ++i) {
    if (frames[i].array) {
      path += "[" + std::to_string(frames[i].index) + "]";
    } else {
      if (!path.empty()) path += ".";
      path += frames[i].key;
    }
  }
  return path;
}

std::string excerpt(const Json& j) {
  std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

}  // namespace

Json parse_json(std::string_view text, const std::string& source) {
  std::vector<Frame> frames;
  auto element_done = [&frames] {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  };
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) -> bool {
    if (depth > kMaxDepth) {
      throw Error(ErrorKind::kContract, source + ": " + frames_path(frames, frames.size() + 1) +
                                            ": JSON nested deeper than " + std::to_string(kMaxDepth));
    }
    switch (event) {
      case Json::parse_event_t::object_start:
        frames.push_back({});
        break;
      case Json::parse_event_t::array_start:
        frames.emplace_back();
        frames.back().array = true;
        break;
      case Json::parse_event_t::key: {
        Frame& top = frames.back();
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!top.keys.insert(key).second) {
          std::string path = frames_path(frames, frames.size());
          throw Error(ErrorKind::kContract, source + ": " + (path.empty() ? "" : path + ": ") +
                                                "duplicate key '" + key + "'");
        }
        top.key = key;
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  };
  Json json;
  try {
    json = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    throw Error(ErrorKind::kContract, source + ": not valid JSON: " + e.what());
  }
  if (!json.is_object()) {
    throw Error(ErrorKind::kContract, source + ": expected a JSON object at the root, got " +
                                          std::string(json.type_name()));
  }
  return json;
}

bool is_identifier(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string Node::where() const { return path_.empty() ? *source_ : *source_ + ": " + path_; }

void Node::fail(std::string_view message) const {
  throw Error(ErrorKind::kContract, where() + ": " + std::string(message));
}

std::string Node::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string Node::describe() const { return std::string(json_->type_name()) + " " + excerpt(*json_); }

void Node::expect_object() const {
  if (!json_->is_object()) fail("expected an object, got " + describe());
}

void Node::expect_array() const {
  if (!json_->is_array()) fail("expected a list, got " + describe());
}

void Node::expect_keys(std::initializer_list<std::string_view> allowed) const {
  expect_object();
  for (const auto& [key, value] : json_->items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (!known) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail("unknown key '" + key + "' (allowed: " + list + ")");
    }
  }
}

std::optional<Node> Node::find(std::string_view key) const {
  expect_object();
  auto it = json_->find(key);
  if (it == json_->end()) return std::nullopt;
  return Node(*it, child_path(key), *source_);
}

Node Node::require(std::string_view key) const {
  auto node = find(key);
  if (!node) fail("missing required key '" + std::string(key) + "'");
  return *node;
}

std::vector<std::pair<std::string, Node>> Node::members() const {
  expect_object();
  std::vector<std::pair<std::string, Node>> out;
  for (const auto& [key, value] : json_->items()) out.emplace_back(key, Node(value, child_path(key), *source_));
  return out;
}

std::vector<Node> Node::elements() const {
  expect_array();
  std::vector<Node> out;
  for (std::size_t i = 0; i < json_->size(); ++i) {
    out.emplace_back((*json_)[i], path_ + "[" + std::to_string(i) + "]", *source_);
  }
  return out;
}

std::string Node::string() const {
  if (!json_->is_string()) fail("expected a string, got " + describe());
  return json_->get<std::string>();
}

std::string Node::identifier() const {
  std::string s = string();
  if (!is_identifier(s)) fail("'" + s + "' is not a name (letters, digits, '_'; not starting with a digit)");
  return s;
}

std::int64_t Node::integer() const {
  if (json_->is_number_integer()) {
    if (json_->is_number_unsigned() &&
        json_->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail("integer " + excerpt(*json_) + " is out of range");
    }
    return json_->get<std::int64_t>();
  }
  fail("expected an integer, got " + describe());
}

bool Node::boolean() const {
  if (!json_->is_boolean()) fail("expected true or false, got " + describe());
  return json_->get<bool>();
}

expr::Value Node::value() const {
  switch (json_->type()) {
    case Json::value_t::null:
      return expr::None{};
    case Json::value_t::boolean:
      return json_->get<bool>();
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return integer();
    case Json::value_t::number_float:
      return json_->get<double>();
    case Json::value_t::string:
      return json_->get<std::string>();
    case Json::value_t::array: {
      expr::List list;
      for (const Node& e : elements()) list.push_back(e.value());
      return list;
    }
    case Json::value_t::object: {
      expr::Object object;
      for (const auto& [k, v] : members()) object.emplace(k, v.value());
      return object;
    }
    default:
      fail("expected a JSON value, got " + describe());
  }
}

expr::Expression Node::expression() const {
  std::string text;
  if (json_->is_string()) {
    text = json_->get<std::string>();
  } else if (json_->is_boolean()) {
    text = json_->get<bool>() ? "true" : "false";
  } else if (json_->is_number()) {
    text = json_->dump();
  } else {
    fail("expected an expression (a string, number or boolean), got " + describe());
  }
  return expr::Expression::parse(text, where());
}

}  // namespace wgk::contract::detail
