/* The commands of the mbsid executable (one file each) and their dispatcher (commands.c). */
#pragma once

#include "identification/identificationimpl.h"

/* Command table */
typedef PetscErrorCode (*MbsCommandFn)(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandSimulate(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandGradcheck(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandIdentify(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandScan(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandEigen(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandPerturb(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandDesign(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandImport(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandTrack(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandBeam(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandFrf(MPI_Comm);
PETSC_EXTERN PetscErrorCode MbsCommandRegisterAll(void);
PETSC_EXTERN PetscErrorCode MbsCommandRun(MPI_Comm, const char[]);
PETSC_EXTERN PetscErrorCode MbsCommandView(MPI_Comm);

/* Exit status of a run stopped by a signal with its checkpoint written, "resume me": not 1 (a YAML error) and outside
   55..99, the PETSc error codes that an error exit returns through MPI_Abort */
#define MBS_EXIT_STOPPED 3
PETSC_INTERN PetscErrorCode MbsCommandSetExitStatus(int);
PETSC_EXTERN int            MbsCommandGetExitStatus(void);
