/*
  Lists the workarounds of PETSc behaviour (util/petsc_workarounds.h) with the PETSc mbsid is built with, and fails
  when that PETSc is newer than the one they were verified with: each must then be checked again and dropped where
  PETSc is fixed.
*/
#include "mbsidimpl.h"

int main(int argc, char **argv)
{
  PetscBool newer = (PetscBool)PETSC_VERSION_GE(3, MBS_PETSC_VERIFIED_MINOR + 1, 0);

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
#define MBS_PRINT_WORKAROUND(name, where) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-40s %-9s %s\n", #name, (name) ? "in force" : "dropped", where));
  MBS_PETSC_WORKAROUNDS(MBS_PRINT_WORKAROUND)
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc %d.%d.%d; the workarounds were verified with PETSc 3.%d\n", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, MBS_PETSC_VERIFIED_MINOR));
  if (newer) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "This PETSc is newer: check each workaround in force above against it (its test is named in util/petsc_workarounds.h), drop those it fixes, and raise MBS_PETSC_VERIFIED_MINOR\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "workarounds verified for this PETSc\n"));
  PetscCall(PetscFinalize());
  return newer ? 1 : 0;
}
