/*
  Checked reading of application options. PETSc's array reader fills the array it is given and drops whatever does
  not fit, so -time_span 0,5,7 would silently become 0,5: the reader here offers one slot more and refuses a count
  other than the expected one, and any value that is not a finite number, naming the option. A result file's
  directory is checked when the option is read, not after the work that would have filled the file.
*/
#include "mbsidimpl.h"
#include <libgen.h>

/*@C
  MbsOptionsRealArrayExact - Inside a PetscOptionsBegin() block: reads the option name into values[0..n-1] (which
  hold the defaults), listed in -help with text; when given, it must have exactly n finite values. Collective.
@*/
PetscErrorCode MbsOptionsRealArrayExact(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt n, PetscReal values[], PetscBool *set)
{
  PetscReal *read;
  PetscInt   count = n + 1;
  PetscBool  given;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &read));
  PetscCall(PetscArraycpy(read, values, n));
  read[n] = 0;
  PetscCall(PetscOptionsRealArray(name, text, man, read, &count, &given));
  if (given) {
    PetscCheck(count == n, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "Option %s needs exactly %" PetscInt_FMT " values, got %s%" PetscInt_FMT " (%s)", name, n, count > n ? "more than " : "", count > n ? n : count, text);
    for (PetscInt i = 0; i < n; i++) PetscCheck(!PetscIsInfOrNanReal(read[i]), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Option %s: value %" PetscInt_FMT " is %g, not a finite number", name, i + 1, (double)read[i]);
    PetscCall(PetscArraycpy(values, read, n));
  }
  if (set) *set = given;
  PetscCall(PetscFree(read));
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsOutputFile - Inside a PetscOptionsBegin() block: reads the result file option name into path (which
  holds the default); a non-empty path must lie in an existing, writable directory. Collective.
@*/
PetscErrorCode MbsOptionsOutputFile(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], char path[], size_t size)
{
  char directory[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, "", path, path, size, NULL));
  if (!path[0]) PetscFunctionReturn(0);
  PetscCall(PetscStrncpy(directory, path, sizeof(directory)));
  PetscCheck(access(dirname(directory), W_OK | X_OK) == 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "Option %s %s: directory '%s' does not exist or is not writable", name, path, directory);
  PetscFunctionReturn(0);
}
