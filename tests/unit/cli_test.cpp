// The command-line program as a user runs it: the default case, bad input, restart.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Outcome {
  int exit_code;
  std::string output;
};

Outcome run(const std::string& arguments) {
  const std::string command = std::string(FLOWDG_CLI) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

TEST(Cli, DefaultCaseRunsAndLeavesItsFiles) {
  const auto directory = std::filesystem::temp_directory_path() / "flowdg-cli-default";
  std::filesystem::remove_all(directory);
  const Outcome outcome = run("run --backend cpu --set time.end_time=0.0005 --output " + directory.string());
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("double-mach"), std::string::npos) << outcome.output;
  for (const char* name : {"summary.json", "solution.vtu", "checkpoint.h5"})
    EXPECT_TRUE(std::filesystem::exists(directory / name)) << name;
  // Continue it to a later time from its checkpoint.
  const Outcome resumed = run("run --backend cpu --set time.end_time=0.001 --output " + directory.string() + "/resumed --restart " +
                              (directory / "checkpoint.h5").string());
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("restarted from"), std::string::npos) << resumed.output;
  std::filesystem::remove_all(directory);
}

TEST(Cli, BadInputIsOneLineAndExitCodeTwo) {
  for (const std::string arguments :
       {"run --backend cpu --set solver.ordr=2", "run --backend cpu --set solver.order=42", "run /nonexistent/case.toml",
        "run --backend cpu --set mesh.file='\"/nonexistent.msh\"'", "convergence --backend cpu --orders x", "run --backend gpu0", "frobnicate"}) {
    const Outcome outcome = run(arguments + " --output /tmp/flowdg-cli-bad");
    EXPECT_EQ(outcome.exit_code, 2) << arguments << "\n" << outcome.output;
    EXPECT_FALSE(outcome.output.empty()) << arguments;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/flowdg-cli-bad/summary.json"));
}

TEST(Cli, MeshCurveWritesACurvedGmshMeshAndRefusesBadWalls) {
  const auto path = std::filesystem::temp_directory_path() / ("flowdg-cli-curve-" + std::to_string(::getpid()) + ".msh");
  const std::string mesh = std::string(FLOWDG_TEST_DATA_DIR) + "/annulus_msh41.msh";
  const Outcome outcome = run("mesh curve " + mesh + " --wall inner=circle:0,0,1 --wall outer=circle:0,0,1.384 --order 3 --sliding inflow " +
                              "--sliding outflow -o " + path.string());
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("curved 188 of 188 elements to order 3"), std::string::npos) << outcome.output;
  const Outcome info = run("mesh info " + path.string());
  EXPECT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("triangle10: 188"), std::string::npos) << info.output;
  std::filesystem::remove(path);
  const Outcome bad = run("mesh curve " + mesh + " --wall inner=cube:0,0,1 -o " + path.string());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("unknown shape 'cube'"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(path));
}
