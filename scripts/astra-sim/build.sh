#!/usr/bin/env bash
# Builds ASTRA-sim's two analytical binaries for scripts/astra-sim/compare.py
# (docs/reproductions/astra-sim-analytical.md, "How to rerun").
#
#   scripts/astra-sim/build.sh ASTRA_SIM_DIR YAML_CPP_DIR
#
# ASTRA_SIM_DIR: github.com/astra-sim/astra-sim at 518bd51 with its
# submodules: extern/graph_frontend/chakra (astra-sim/chakra; its pin
# 0e3cd40 was not to be had, f37c2bb was used), extern/network_backend/
# analytical (astra-sim/astra-network-analytical 599a047), extern/
# remote_memory_backend/analytical, extern/helper/fmt and
# extern/helper/spdlog as pinned. YAML_CPP_DIR: github.com/jbeder/yaml-cpp
# at a83cd31 (the commit ASTRA-sim's CMakeLists fetches; given as a
# directory for a machine without network access). Needs cmake, g++,
# protoc and libprotobuf-dev.
set -euo pipefail
src=$(realpath "$1")
yaml=$(realpath "$2")

# astra-sim 518bd51's Statistics.hh and LocalMemUsageTracker.hh name the
# feeder's types in namespace Chakra; chakra f37c2bb declares them in
# Chakra::FeederV3.
feeder="$src/extern/graph_frontend/chakra/src/feeder_v3/et_feeder.h"
if ! grep -q "using FeederV3::ETFeederNode" "$feeder"; then
    python3 - "$feeder" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.rindex("#endif")
s = s[:i] + "namespace Chakra {\nusing FeederV3::ETFeeder;\nusing FeederV3::ETFeederNode;\n}\n\n" + s[i:]
open(p, "w").write(s)
PY
fi
# The backend adds yaml-cpp itself; ASTRA-sim's top CMakeLists has
# already fetched it.
sed -i 's|^add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/extern/yaml-cpp yaml-cpp)$|if(NOT TARGET yaml-cpp)\n  add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/extern/yaml-cpp yaml-cpp)\nendif()|' \
    "$src/extern/network_backend/analytical/CMakeLists.txt"

proto="$src/extern/graph_frontend/chakra/schema/protobuf"
protoc et_def.proto --proto_path="$proto" --cpp_out="$proto"
build="$src/build/astra_analytical/build"
mkdir -p "$build"
cd "$build"
cmake .. -DBUILDTARGET=all -DCMAKE_BUILD_TYPE=Release -DFETCHCONTENT_SOURCE_DIR_YAML-CPP="$yaml"
cmake --build . -j "$(nproc)"
ls "$build/bin"
