// Matching a bulk SDK answer to the PVs asked about, one volume at a time
// (model/portworx_match): by volume id first, by name for a handle that names the volume.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "model/portworx_match.hpp"

using namespace schedopt;

namespace {

std::shared_ptr<const persistent_volume> pv(const std::string& name, const std::string& handle) {
  persistent_volume p;
  p.metadata.name = name;
  p.csi_driver = "pxd.portworx.com";
  p.volume_handle = handle;
  return std::make_shared<const persistent_volume>(std::move(p));
}

/// "pv:ids;" for found PVs, "pv:-;" for missing ones, in the PVs' order.
std::string outcome(const px_volume_match& m) {
  std::string out;
  m.visit(
    [&](const persistent_volume& p, const std::vector<const std::string*>& ids) {
      out += p.metadata.name + ":";
      for (auto* id : ids)
        out += *id + ",";
      out += ";";
    },
    [&](const persistent_volume& p) { out += p.metadata.name + ":-;"; });
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(portworx_match)

BOOST_AUTO_TEST_CASE(volumes_match_by_id_then_by_name_in_any_order) {
  shared_list<persistent_volume> pvs{pv("pv-a", "111"), pv("pv-b", "vol-b"), pv("pv-c", "333"),
                                     pv("pv-d", "111")};
  // Every order of the answer gives the same result: pv-b's handle is a volume's name
  // (vol-b) and also, later, the id of another volume, which wins as a lookup by id would.
  std::vector<sdk_volume> answer{{"111", "x", {"px1", "px2"}},
                                 {"900", "vol-b", {"px3"}},
                                 {"vol-b", "y", {"px4", "px1"}},
                                 {"111", "dup", {"px9"}}};
  std::vector<std::size_t> order{0, 1, 2, 3};
  do {
    px_volume_match m{pvs};
    for (auto i : order)
      m.offer(answer[i]);
    auto position = [&](std::size_t k) { return std::find(order.begin(), order.end(), k) - order.begin(); };
    std::string first111 = position(3) < position(0) ? "px9," : "px1,px2,"; // first offered
    BOOST_CHECK_EQUAL(outcome(m), "pv-a:" + first111 + ";pv-b:px4,px1,;pv-c:-;pv-d:" + first111 + ";");
    BOOST_CHECK_LE(m.distinct_nodes(), 5u);
  } while (std::next_permutation(order.begin(), order.end()));
}

BOOST_AUTO_TEST_CASE(a_handle_naming_a_volume_matches_when_no_id_does) {
  shared_list<persistent_volume> pvs{pv("pv-a", "vol-a")};
  px_volume_match m{pvs};
  m.offer({"1", "vol-a", {"px1"}});
  m.offer({"2", "vol-a", {"px2"}}); // a second volume of that name: the first one stands
  BOOST_CHECK_EQUAL(outcome(m), "pv-a:px1,;");
}

BOOST_AUTO_TEST_CASE(node_ids_are_held_once_and_records_fill_the_fallback) {
  shared_list<persistent_volume> pvs;
  for (int i = 0; i < 1000; ++i)
    pvs.push_back(pv("pv-" + std::to_string(i), std::to_string(i)));
  px_volume_match m{pvs};
  for (int i = 0; i < 1000; i += 2)
    m.offer({std::to_string(i), "", {"px" + std::to_string(i % 3), "px" + std::to_string(i % 5)}});
  m.record(1, {"px-other"}); // the per-volume inspect's answer for PV 1
  BOOST_CHECK_EQUAL(m.distinct_nodes(), 6u); // px0..px4 and px-other
  std::size_t found = 0, missing = 0;
  m.visit([&](const persistent_volume&, const std::vector<const std::string*>& ids) {
            ++found;
            BOOST_CHECK(!ids.empty());
          },
          [&](const persistent_volume&) { ++missing; });
  BOOST_CHECK_EQUAL(found, 501u);
  BOOST_CHECK_EQUAL(missing, 499u);
}

BOOST_AUTO_TEST_SUITE_END()
