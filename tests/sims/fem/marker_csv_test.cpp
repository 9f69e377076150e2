// Marker CSVs: a trajectory written and read back is the same; bad files name the line.
#include "sims/fem/marker_csv.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace simgrad::fem {
namespace {

TEST(MarkerCsv, RoundTrips) {
  MarkerTrajectory t;
  t.dimension = 3;
  t.markers = {4, 0};
  t.frame_interval = 0.005;
  for (int k = 0; k < 3 * 2 * 3; ++k) t.positions.push_back(0.1 * k + 1e-17 * k);
  std::ostringstream out;
  write_marker_csv(out, t);
  std::istringstream in(out.str());
  const MarkerTrajectory back = read_marker_csv(in, 3, "m.csv");
  EXPECT_EQ(back.markers, t.markers);
  EXPECT_EQ(back.positions, t.positions);
  EXPECT_EQ(back.frames(), 3);
  EXPECT_NEAR(back.frame_interval, 0.005, 1e-15);
  EXPECT_EQ(steps_per_frame(back, 2.5e-4, "m.csv"), 20);
  EXPECT_THROW(steps_per_frame(back, 3e-4, "m.csv"), std::invalid_argument);
}

std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    read_marker_csv(in, 2, "m.csv");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(MarkerCsv, ErrorsNameTheLine) {
  EXPECT_EQ(error_of("t,n,x,y\n"), "m.csv:1: expected the header time,node,x,y, got \"t,n,x,y\"");
  EXPECT_EQ(error_of("time,node,x,y\n0,1,0.5\n"), "m.csv:2: expected 4 values (time,node,x,y)");
  EXPECT_EQ(error_of("time,node,x,y\n0,1,0.5,abc\n"), "m.csv:2: \"abc\" is not a number");
  EXPECT_EQ(error_of("time,node,x,y\n0,1,0,0\n0,2,0,0\n0.1,2,0,0\n0.1,1,0,0\n"),
            "m.csv:4: every frame must list the nodes of the first frame in the same order");
  EXPECT_EQ(error_of("time,node,x,y\n0,1,0,0\n0,2,0,0\n0.1,1,0,0\n"), "m.csv:4: the last frame is incomplete");
}

}  // namespace
}  // namespace simgrad::fem
