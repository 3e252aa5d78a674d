#include "sim/protobuf/k8s_protobuf.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <openssl/evp.h>

#include "sim/protobuf/go_time.hpp"
#include "sim/protobuf/k8s_types.hpp"

namespace schedopt::sim::protobuf {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using nlohmann::json;

constexpr std::string_view magic("k8s\0", 4);

/// The types whose Go side has its own MarshalJSON/UnmarshalJSON.
enum class special { none, time, micro_time, duration, quantity, int_or_string, raw_extension, fields_v1, slice };

special special_of(const Descriptor* m) {
  static const std::unordered_map<std::string, special> by_name = {
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Time", special::time},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", special::micro_time},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Duration", special::duration},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", special::fields_v1},
    {"k8s.io.apimachinery.pkg.api.resource.Quantity", special::quantity},
    {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", special::int_or_string},
    {"k8s.io.apimachinery.pkg.runtime.RawExtension", special::raw_extension},
  };
  if (auto it = by_name.find(m->full_name()); it != by_name.end())
    return it->second;
  return k8s_types::instance().is_slice(m) ? special::slice : special::none;
}

google::protobuf::DynamicMessageFactory& factory() {
  static google::protobuf::DynamicMessageFactory f;
  return f;
}

std::unique_ptr<Message> new_message(const Descriptor* d) {
  return std::unique_ptr<Message>(factory().GetPrototype(d)->New());
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> unbase64(const std::string& text) {
  if (text.size() % 4 != 0)
    return std::nullopt;
  std::string out(3 * text.size() / 4 + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0)
    return std::nullopt;
  std::size_t padding = text.size() >= 2 && text[text.size() - 1] == '=' ? (text[text.size() - 2] == '=' ? 2 : 1) : 0;
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

// --- protobuf to JSON -------------------------------------------------------------------

json to_json(const Message& m);

json scalar(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case FieldDescriptor::CPPTYPE_INT64: return rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case FieldDescriptor::CPPTYPE_UINT32: return rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64: return rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE: return rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
    case FieldDescriptor::CPPTYPE_FLOAT: return rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
    case FieldDescriptor::CPPTYPE_BOOL: return rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
    case FieldDescriptor::CPPTYPE_ENUM: return rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
    case FieldDescriptor::CPPTYPE_STRING: {
      auto s = rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
      // Go's encoding/json writes []byte as standard base64.
      return f->type() == FieldDescriptor::TYPE_BYTES ? json(base64(s)) : json(s);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return to_json(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f));
  }
  return nullptr;
}

bool is_zero(const json& v) {
  return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) || (v.is_boolean() && !v.get<bool>())
         || (v.is_number() && v == 0);
}

/// What Go's encoding/json writes for the zero value of a struct field of message type `d`.
json zero_struct(const Descriptor* d) {
  switch (special_of(d)) {
    case special::time:
    case special::micro_time:
    case special::raw_extension:
    case special::fields_v1:
    case special::slice: return nullptr;
    case special::duration: return "0s";
    case special::quantity: return "0";
    case special::int_or_string: return 0;
    case special::none: break;
  }
  return to_json(*factory().GetPrototype(d));
}

json from_raw_json(const std::string& raw) {
  if (raw.empty())
    return nullptr;
  if (raw.compare(0, magic.size(), magic) == 0) {
    // An embedded object in protobuf (a WatchEvent's) is decoded in turn; a body nesting
    // envelopes within envelopes stops here rather than at the end of the stack.
    static thread_local int depth = 0;
    if (depth >= 8)
      return nullptr;
    ++depth;
    auto inner = decode(raw);
    --depth;
    return inner.error.empty() ? inner.object : json(nullptr);
  }
  auto parsed = json::parse(raw, nullptr, false);
  return parsed.is_discarded() ? json(nullptr) : parsed;
}

json special_to_json(const Message& m, special kind) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  auto field = [&](const char* name) { return d->FindFieldByName(name); };
  switch (kind) {
    case special::time:
    case special::micro_time: {
      // metav1.Time.Unmarshal: no bytes is the zero time (JSON null), and only seconds
      // count; MicroTime keeps the nanoseconds.
      if (!r->HasField(m, field("seconds")) && !r->HasField(m, field("nanos")))
        return nullptr;
      auto seconds = r->GetInt64(m, field("seconds"));
      return kind == special::time ? format_rfc3339(seconds) : format_rfc3339_micro(seconds, r->GetInt32(m, field("nanos")));
    }
    case special::duration: return format_go_duration(r->GetInt64(m, field("duration")));
    case special::quantity: {
      auto s = r->GetString(m, field("string"));
      return s.empty() ? "0" : s;
    }
    case special::int_or_string:
      if (r->GetInt64(m, field("type")) == 1)
        return r->GetString(m, field("strVal"));
      return r->GetInt32(m, field("intVal"));
    case special::raw_extension: return from_raw_json(r->GetString(m, field("raw")));
    case special::fields_v1: return from_raw_json(r->GetString(m, field("Raw")));
    case special::slice: {
      const FieldDescriptor* items = d->field(0);
      int n = r->FieldSize(m, items);
      if (n == 0)
        return nullptr;
      json out = json::array();
      for (int k = 0; k < n; ++k)
        out.push_back(scalar(m, items, k));
      return out;
    }
    case special::none: break;
  }
  return nullptr;
}

json to_json(const Message& m) {
  const Descriptor* d = m.GetDescriptor();
  if (auto kind = special_of(d); kind != special::none)
    return special_to_json(m, kind);
  const Reflection* r = m.GetReflection();
  const auto& types = k8s_types::instance();
  json out = json::object();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    go_field go = types.field(f);
    if (f->is_repeated()) {
      int n = r->FieldSize(m, f);
      if (n == 0) {
        if (!go.omitempty)
          out[go.json_name] = nullptr; // a nil slice or map
        continue;
      }
      if (f->is_map()) {
        json object = json::object();
        for (int k = 0; k < n; ++k) {
          const Message& entry = r->GetRepeatedMessage(m, f, k);
          const Descriptor* e = entry.GetDescriptor();
          object[entry.GetReflection()->GetString(entry, e->FindFieldByNumber(1))] =
            scalar(entry, e->FindFieldByNumber(2), -1);
        }
        out[go.json_name] = std::move(object);
      } else {
        json array = json::array();
        for (int k = 0; k < n; ++k)
          array.push_back(scalar(m, f, k));
        out[go.json_name] = std::move(array);
      }
      continue;
    }
    bool present = r->HasField(m, f);
    if (!present && go.pointer) {
      if (!go.omitempty)
        out[go.json_name] = nullptr;
      continue;
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      // encoding/json never leaves out a struct for omitempty; omitzero leaves out a zero one.
      json v = present ? scalar(m, f, -1) : zero_struct(f->message_type());
      if (go.json_name.empty()) { // an inline struct: its fields are this object's
        if (v.is_object())
          out.update(v);
        continue;
      }
      if (go.omitzero && is_zero(v))
        continue;
      if (special_of(f->message_type()) == special::slice && v.is_null() && go.omitempty)
        continue;
      out[go.json_name] = std::move(v);
      continue;
    }
    json v = scalar(m, f, -1); // the field's default (zero) when absent
    if (is_zero(v) && !go.pointer && (go.omitempty || go.omitzero))
      continue;
    out[go.json_name] = std::move(v);
  }
  return out;
}

// --- JSON to protobuf -------------------------------------------------------------------

void fill(Message* m, const json& j);

void add_or_set(Message* m, const FieldDescriptor* f, const json& v) {
  const Reflection* r = m->GetReflection();
  bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
    case FieldDescriptor::CPPTYPE_ENUM:
      if (!v.is_number())
        return;
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT32)
        rep ? r->AddInt32(m, f, v.get<std::int32_t>()) : r->SetInt32(m, f, v.get<std::int32_t>());
      else if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT64)
        rep ? r->AddInt64(m, f, v.get<std::int64_t>()) : r->SetInt64(m, f, v.get<std::int64_t>());
      else if (f->cpp_type() == FieldDescriptor::CPPTYPE_UINT32)
        rep ? r->AddUInt32(m, f, v.get<std::uint32_t>()) : r->SetUInt32(m, f, v.get<std::uint32_t>());
      else if (f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64)
        rep ? r->AddUInt64(m, f, v.get<std::uint64_t>()) : r->SetUInt64(m, f, v.get<std::uint64_t>());
      else
        rep ? r->AddEnumValue(m, f, v.get<int>()) : r->SetEnumValue(m, f, v.get<int>());
      return;
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      if (!v.is_number())
        return;
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE)
        rep ? r->AddDouble(m, f, v.get<double>()) : r->SetDouble(m, f, v.get<double>());
      else
        rep ? r->AddFloat(m, f, v.get<float>()) : r->SetFloat(m, f, v.get<float>());
      return;
    case FieldDescriptor::CPPTYPE_BOOL:
      if (v.is_boolean())
        rep ? r->AddBool(m, f, v.get<bool>()) : r->SetBool(m, f, v.get<bool>());
      return;
    case FieldDescriptor::CPPTYPE_STRING: {
      if (!v.is_string())
        return;
      std::string s = v.get<std::string>();
      if (f->type() == FieldDescriptor::TYPE_BYTES) {
        auto bytes = unbase64(s);
        if (!bytes)
          return;
        s = std::move(*bytes);
      }
      rep ? r->AddString(m, f, std::move(s)) : r->SetString(m, f, std::move(s));
      return;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      fill(rep ? r->AddMessage(m, f) : r->MutableMessage(m, f), v);
      return;
  }
}

void fill_special(Message* m, special kind, const json& j) {
  const Descriptor* d = m->GetDescriptor();
  const Reflection* r = m->GetReflection();
  auto field = [&](const char* name) { return d->FindFieldByName(name); };
  switch (kind) {
    case special::time:
    case special::micro_time: {
      if (!j.is_string())
        return;
      auto t = parse_rfc3339(j.get<std::string>());
      if (!t)
        return;
      r->SetInt64(m, field("seconds"), t->seconds);
      if (kind == special::micro_time && t->nanos != 0)
        r->SetInt32(m, field("nanos"), t->nanos);
      return;
    }
    case special::duration:
      if (auto ns = j.is_string() ? parse_go_duration(j.get<std::string>()) : std::nullopt)
        r->SetInt64(m, field("duration"), *ns);
      return;
    case special::quantity:
      r->SetString(m, field("string"), j.is_string() ? j.get<std::string>() : j.dump());
      return;
    case special::int_or_string:
      if (j.is_string()) {
        r->SetInt64(m, field("type"), 1);
        r->SetString(m, field("strVal"), j.get<std::string>());
      } else if (j.is_number_integer()) {
        r->SetInt64(m, field("type"), 0);
        r->SetInt32(m, field("intVal"), j.get<std::int32_t>());
      }
      return;
    case special::raw_extension: r->SetString(m, field("raw"), j.dump()); return;
    case special::fields_v1: r->SetString(m, field("Raw"), j.dump()); return;
    case special::slice:
      if (j.is_array())
        for (const auto& v : j)
          add_or_set(m, d->field(0), v);
      return;
    case special::none: return;
  }
}

void fill(Message* m, const json& j) {
  const Descriptor* d = m->GetDescriptor();
  if (auto kind = special_of(d); kind != special::none)
    return fill_special(m, kind, j);
  if (!j.is_object())
    return;
  const auto& types = k8s_types::instance();
  for (const auto& [name, v] : j.items()) {
    auto path = types.resolve(d, name);
    if (path.empty() || v.is_null())
      continue;
    // Into the inline structs the field sits in.
    Message* target = m;
    for (std::size_t k = 0; k + 1 < path.size(); ++k)
      target = target->GetReflection()->MutableMessage(target, path[k]);
    const FieldDescriptor* f = path.back();
    const Reflection* r = target->GetReflection();
    if (f->is_map()) {
      if (!v.is_object())
        continue;
      for (const auto& [key, value] : v.items()) {
        if (value.is_null())
          continue;
        Message* entry = r->AddMessage(target, f);
        const Descriptor* e = entry->GetDescriptor();
        entry->GetReflection()->SetString(entry, e->FindFieldByNumber(1), key);
        add_or_set(entry, e->FindFieldByNumber(2), value);
      }
    } else if (f->is_repeated()) {
      if (v.is_array())
        for (const auto& element : v)
          add_or_set(target, f, element);
    } else {
      add_or_set(target, f, v);
    }
  }
}

// --- unknown fields ---------------------------------------------------------------------

void drop_unknown(json& j, const Descriptor* d, const std::string& path, std::vector<std::string>& dropped);

/// `j` as the value of field `f`, at `path`.
void drop_unknown_in_value(json& j, const FieldDescriptor* f, const std::string& path, std::vector<std::string>& dropped) {
  if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
    return;
  if (f->is_map()) {
    const FieldDescriptor* value = f->message_type()->FindFieldByNumber(2);
    if (j.is_object() && value->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
      for (auto& [key, v] : j.items())
        drop_unknown(v, value->message_type(), path + "[" + key + "]", dropped);
    return;
  }
  if (f->is_repeated()) {
    if (j.is_array())
      for (std::size_t i = 0; i < j.size(); ++i)
        drop_unknown(j[i], f->message_type(), path + "[" + std::to_string(i) + "]", dropped);
    return;
  }
  drop_unknown(j, f->message_type(), path, dropped);
}

void drop_unknown(json& j, const Descriptor* d, const std::string& path, std::vector<std::string>& dropped) {
  // The types with their own JSON form take what their UnmarshalJSON takes.
  if (special_of(d) != special::none || !j.is_object())
    return;
  const auto& types = k8s_types::instance();
  for (auto it = j.begin(); it != j.end();) {
    auto where = path.empty() ? it.key() : path + "." + it.key();
    auto field = types.resolve(d, it.key());
    bool type_meta = (path.empty() || types.has_type_meta(d)) && (it.key() == "apiVersion" || it.key() == "kind");
    if (field.empty() && !type_meta) {
      dropped.push_back(where);
      it = j.erase(it);
      continue;
    }
    if (!field.empty())
      drop_unknown_in_value(it.value(), field.back(), where, dropped);
    ++it;
  }
}

} // namespace

std::vector<std::string> drop_unknown_fields(nlohmann::json& object, const std::string& api_version,
                                             const std::string& kind) {
  std::vector<std::string> dropped;
  if (const Descriptor* d = k8s_types::instance().message(api_version, kind))
    drop_unknown(object, d, "", dropped);
  std::sort(dropped.begin(), dropped.end());
  return dropped;
}

bool has_magic(std::string_view body) {
  return body.substr(0, magic.size()) == magic;
}

decoded decode(std::string_view body) {
  if (!has_magic(body))
    return {nullptr, "the body does not start with the protobuf serializer's magic number"};
  const auto& types = k8s_types::instance();
  auto unknown = new_message(types.by_name("k8s.io.apimachinery.pkg.runtime.Unknown"));
  if (!unknown->ParseFromArray(body.data() + magic.size(), static_cast<int>(body.size() - magic.size())))
    return {nullptr, "the protobuf envelope (runtime.Unknown) does not parse"};
  const Descriptor* u = unknown->GetDescriptor();
  const Reflection* r = unknown->GetReflection();
  const Message& type_meta = r->GetMessage(*unknown, u->FindFieldByName("typeMeta"));
  const Descriptor* t = type_meta.GetDescriptor();
  auto api_version = type_meta.GetReflection()->GetString(type_meta, t->FindFieldByName("apiVersion"));
  auto kind = type_meta.GetReflection()->GetString(type_meta, t->FindFieldByName("kind"));
  const Descriptor* d = types.message(api_version, kind);
  if (d == nullptr)
    return {nullptr, "no kind \"" + kind + "\" is registered for version \"" + api_version + "\""};
  auto object = new_message(d);
  if (!object->ParseFromString(r->GetString(*unknown, u->FindFieldByName("raw"))))
    return {nullptr, "the protobuf " + kind + " does not parse"};
  json out = to_json(*object);
  out["apiVersion"] = api_version;
  out["kind"] = kind;
  return {std::move(out), {}};
}

std::optional<std::string> encode(const nlohmann::json& object) {
  if (!object.is_object())
    return std::nullopt;
  auto api_version = object.value("apiVersion", std::string());
  auto kind = object.value("kind", std::string());
  const auto& types = k8s_types::instance();
  const Descriptor* d = types.message(api_version, kind);
  if (d == nullptr)
    return std::nullopt;
  auto message = new_message(d);
  fill(message.get(), object);
  auto unknown = new_message(types.by_name("k8s.io.apimachinery.pkg.runtime.Unknown"));
  const Descriptor* u = unknown->GetDescriptor();
  const Reflection* r = unknown->GetReflection();
  Message* type_meta = r->MutableMessage(unknown.get(), u->FindFieldByName("typeMeta"));
  type_meta->GetReflection()->SetString(type_meta, type_meta->GetDescriptor()->FindFieldByName("apiVersion"), api_version);
  type_meta->GetReflection()->SetString(type_meta, type_meta->GetDescriptor()->FindFieldByName("kind"), kind);
  r->SetString(unknown.get(), u->FindFieldByName("raw"), message->SerializeAsString());
  // protobuf.go's Serializer writes the envelope's content fields even when empty.
  r->SetString(unknown.get(), u->FindFieldByName("contentEncoding"), "");
  r->SetString(unknown.get(), u->FindFieldByName("contentType"), "");
  return std::string(magic) + unknown->SerializeAsString();
}

} // namespace schedopt::sim::protobuf
