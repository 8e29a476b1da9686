#!/usr/bin/env bash
# cmake --install puts mbsid, its library, the public headers and mbsid.pc in place; a plug-in controller built outside
# the source tree against the installed headers alone (pkg-config --cflags mbsid) runs in the installed mbsid and gives
# the true gains of pid_sdof.md's T4.
# Usage: check_install.sh BUILD_DIR CHECK_PERTURB_PY PERTURB_ARGS...
set -euo pipefail
build=$1
check_perturb=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }
export PKG_CONFIG_PATH="$(dirname "$(find "$work/prefix" -name mbsid.pc)")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
for file in "$work/prefix/bin/mbsid" "$work/prefix/include/mbsid/mbsid.h" "$work/prefix/include/mbsid/mbs_controller.h"; do
  [ -f "$file" ] || fail "$file was not installed"
done
library=$(pkg-config --variable=libdir mbsid)/libmbsid.a
[ -f "$library" ] || fail "pkg-config's libdir has no libmbsid.a ($library)"
version=$(pkg-config --modversion mbsid)
"$work/prefix/bin/mbsid" --version | grep -q "^mbsid $version (commit [0-9a-f]\{12\}" || fail "the installed mbsid --version does not name version $version and a commit"
grep -q "^project(mbsid VERSION $version " "$(dirname "${BASH_SOURCE[0]}")/../CMakeLists.txt" || fail "mbsid.pc has version $version, not CMake's"

# the example plug-in the install ships, compiled where no mbsid source is
mkdir "$work/plugin"
cp "$work/prefix/share/doc/mbsid/examples/test_controllers.c" "$work/plugin/pid.c"
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -std=c17 -Wall -Werror -shared -fPIC $(pkg-config --cflags mbsid) -o "$work/plugin/libpid.so" "$work/plugin/pid.c" -lm || fail "the plug-in does not compile against the installed headers"
(cd "$work" && "$work/prefix/bin/mbsid" perturb -controller "$work/plugin/libpid.so" -controller_symbol pid "$@" -o gains.h5 > perturb.log 2>&1) || { cat "$work/perturb.log"; fail "the installed mbsid failed with the plug-in"; }
/usr/bin/python3 "$check_perturb" gains "$work/gains.h5" --truth 100,20,6 --atol 1e-6,1e-6,1e-10 || fail "wrong gains from the out-of-tree plug-in"
# a program on the installed library: oscillator2 (two masses) has 2 coordinates, 4 states
cat > "$work/plugin/sizes.c" << 'PROGRAM'
#include <mbsid.h>
int main(int argc, char **argv)
{
  MbsModel model;
  PetscInt n, nq, np;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MbsModelRegisterAll());
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "oscillator2"));
  PetscCall(MbsModelGetSizes(model, &n, &nq, &np));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "states %" PetscInt_FMT " coordinates %" PetscInt_FMT "\n", n, nq));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscFinalize());
  return 0;
}
PROGRAM
# shellcheck disable=SC2046
mpicc -std=c17 -Wall -Werror $(pkg-config --cflags mbsid) -o "$work/plugin/sizes" "$work/plugin/sizes.c" $(pkg-config --libs mbsid) || fail "a program does not build on the installed library with pkg-config --libs mbsid"
sizes=$("$work/plugin/sizes") || fail "the program on the installed library failed: $sizes"
[ "$sizes" = "states 4 coordinates 2" ] || fail "the installed library's oscillator2 has '$sizes', expected 'states 4 coordinates 2'"
echo "check_install: installed mbsid $version, plug-in built with pkg-config --cflags mbsid: true gains"
