// `simgrad sweep` and the command line under an MPI launcher, end to end. The MPI runs
// themselves (1 to 4 processes) are tests/dist/ranks_test.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/app/run_simgrad.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using simgrad::testing::run_simgrad;
using simgrad::testing::tool_scratch;

std::string example(const std::string& name) { return (fs::path(SIMGRAD_SOURCE_DIR) / "examples" / name).string(); }

// The CSV file's rows as numbers, after its header.
std::vector<std::vector<double>> csv_rows(const fs::path& file, std::string& header) {
  std::ifstream in(file);
  std::getline(in, header);
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<double> row;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) row.push_back(std::stod(field));
    rows.push_back(row);
  }
  return rows;
}

TEST(SweepCli, AGridWritesOneRowPerPointAndNamesTheBest) {
  const fs::path out = tool_scratch("sweep_grid");
  const auto r = run_simgrad("sweep " + example("mass_spring_simple.json") +
                             " --param 'rest_length[0]=0.05:0.2:4' --param 'rest_length[1]=0.08,0.12' --json --out " +
                             out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["points"], 8);
  EXPECT_EQ(j["processes"], 1);
  EXPECT_EQ(j["columns"], json::parse(R"(["rest_length[0]", "rest_length[1]", "loss"])"));
  std::string header;
  const auto rows = csv_rows(out / "sweep.csv", header);
  EXPECT_EQ(header, "rest_length[0],rest_length[1],loss");
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0][0], 0.05);
  EXPECT_EQ(rows[1][0], 0.05);  // the last axis varies fastest
  EXPECT_EQ(rows[1][1], 0.12);
  EXPECT_EQ(rows[7][0], 0.2);
  double lowest = INFINITY;
  for (const auto& row : rows) lowest = std::min(lowest, row[2]);
  EXPECT_EQ(j["best"]["loss"].get<double>(), lowest);
  // The printed rows are the file's, to the bit.
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(j["rows"][i][2].get<double>(), rows[i][2]);
}

// The gradient column against central differences of the loss column, on the same sweep.
TEST(SweepCli, TheGradientColumnAgreesWithCentralDifferencesOfTheLoss) {
  const fs::path out = tool_scratch("sweep_gradient");
  const double h = 1e-6;
  char spec[160];
  std::snprintf(spec, sizeof spec, "'rest_length[2]=%.17g,0.16,%.17g'", 0.16 - h, 0.16 + h);
  const auto r = run_simgrad("sweep " + example("mass_spring_simple.json") + " --param " + spec +
                             " --gradient --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::string header;
  const auto rows = csv_rows(out / "sweep.csv", header);
  EXPECT_EQ(header, "rest_length[2],loss,dloss/drest_length[2]");
  ASSERT_EQ(rows.size(), 3u);
  const double fd = (rows[2][1] - rows[0][1]) / (rows[2][0] - rows[0][0]);
  const double ad = rows[1][2];
  EXPECT_NEAR(ad, fd, 1e-4 * std::fabs(fd) + 1e-9) << "ad " << ad << " fd " << fd;
  EXPECT_GT(ad * fd, 0.0) << "the signs differ";
}

TEST(SweepCli, AListOfPointsFromCsv) {
  const fs::path points = tool_scratch("points.csv"), out = tool_scratch("sweep_list");
  std::ofstream(points) << "rest_length[1],rest_length[0]\n0.1,0.1\n0.12,0.09\n";
  const auto r = run_simgrad("sweep " + example("mass_spring_simple.json") + " --points " + points.string() +
                             " --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::string header;
  const auto rows = csv_rows(out / "sweep.csv", header);
  EXPECT_EQ(header, "rest_length[1],rest_length[0],loss");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], 0.12);
  EXPECT_EQ(rows[1][1], 0.09);
}

TEST(SweepCli, BadRequestsExitWithTwoAndWriteNothing) {
  const fs::path out = tool_scratch("sweep_bad");
  const std::string s = example("mass_spring_simple.json");
  for (const std::string& args : {std::string(" --param 'stiffnes=1,2'"), std::string(""),
                                  std::string(" --param 'rest_length[0]=0.1,5'"),
                                  std::string(" --param 'rest_length[0]=0.1' --param 'rest_length[0]=0.2'")}) {
    const auto r = run_simgrad("sweep " + s + args + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("simgrad: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

#if !SIMGRAD_MPI_BUILD
// A simgrad built without MPI, started as several processes by mpirun, refuses rather than
// running the whole job once per process.
TEST(SweepCli, WithoutTheMpiBuildSeveralProcessesAreRefused) {
  setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  const auto r = run_simgrad("run " + example("mass_spring_simple.json"));
  unsetenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("launched as 3 processes by an MPI launcher, but this simgrad was built without MPI"),
            std::string::npos)
      << r.err;
}
#endif

}  // namespace
