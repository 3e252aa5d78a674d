// actors/model_inspect: the model's fields held as short_name (a PVC's name, a volume's
// claim name, a VMI's controlling VM) travel through CAF's serializers as their text and
// arrive whole, inline-sized and heap-sized alike.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "actors/model_inspect.hpp"

using namespace schedopt;

namespace {

/// `x` written by CAF's binary serializer and read back into a fresh T.
template <class T>
T round_trip(T& x) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  auto written = sink(x);
  BOOST_REQUIRE_MESSAGE(!written, "serialize failed");
  T out;
  caf::binary_deserializer source{nullptr, buf};
  auto read = source(out);
  BOOST_REQUIRE_MESSAGE(!read, "deserialize failed");
  return out;
}

// Boost's string keeps up to 22 characters inline; the long names take its heap form.
const std::string inline_name = "vm-7";
const std::string heap_name = "a-datavolume-name-longer-than-twenty-two-characters";

} // namespace

BOOST_AUTO_TEST_SUITE(model_inspect)

BOOST_AUTO_TEST_CASE(a_pvc_name_arrives_as_sent) {
  for (const auto& name : {inline_name, heap_name, std::string()}) {
    persistent_volume_claim pvc;
    pvc.metadata.name.assign(name.data(), name.size());
    pvc.metadata.namespace_ = shared_string("vms-a");
    pvc.volume_name = pv_name("pvc-6b1c4f1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f");
    auto back = round_trip(pvc);
    BOOST_TEST(std::string(std::string_view(back.metadata.name)) == name);
    BOOST_TEST(back.metadata.namespace_.str() == "vms-a");
    BOOST_TEST(back.volume_name.str() == pvc.volume_name.str());
  }
}

BOOST_AUTO_TEST_CASE(a_vmis_claim_names_and_controlling_vm_arrive_as_sent) {
  virtual_machine_instance vmi;
  vmi.metadata.name = "vm-7";
  vmi.controller_vm.assign(heap_name.data(), heap_name.size());
  vmi_volume rootdisk;
  rootdisk.name = shared_string("rootdisk");
  rootdisk.claim_name.assign(inline_name.data(), inline_name.size());
  vmi_volume data;
  data.name = shared_string("datadisk1");
  data.claim_name.assign(heap_name.data(), heap_name.size());
  vmi.volumes = {rootdisk, data};
  vmi.node_name = shared_string("node-3");
  vmi.opted_out = true;

  auto back = round_trip(vmi);
  BOOST_TEST(back.metadata.name == "vm-7");
  BOOST_TEST(std::string(std::string_view(back.controller_vm)) == heap_name);
  BOOST_REQUIRE(back.volumes.size() == 2u);
  BOOST_TEST(back.volumes[0].name.str() == "rootdisk");
  BOOST_TEST(std::string(std::string_view(back.volumes[0].claim_name)) == inline_name);
  BOOST_TEST(std::string(std::string_view(back.volumes[1].claim_name)) == heap_name);
  BOOST_TEST(back.node_name.str() == "node-3");
  BOOST_TEST(back.opted_out);
}

BOOST_AUTO_TEST_SUITE_END()
