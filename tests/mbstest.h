/* Checks shared by the test programs: each comparison is printed, and counted when it fails. */
#pragma once

#include "mbsid.h"

typedef struct {
  PetscInt checks, failures;
} MbsTest;

/* |got - want| <= rtol |want| + atol */
static inline PetscErrorCode MbsTestClose(MbsTest *test, const char what[], PetscReal got, PetscReal want, PetscReal rtol, PetscReal atol)
{
  PetscReal err = PetscAbsReal(got - want);
  PetscBool ok  = (PetscBool)(err <= rtol * PetscAbsReal(want) + atol && !PetscIsInfOrNanReal(got));

  PetscFunctionBeginUser;
  test->checks++;
  if (!ok) test->failures++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %-44s got % .12e want % .12e (abs err %.2e, rtol %.0e, atol %.0e)\n", ok ? "ok  " : "FAIL", what, (double)got, (double)want, (double)err, (double)rtol, (double)atol));
  PetscFunctionReturn(0);
}

static inline PetscErrorCode MbsTestTrue(MbsTest *test, const char what[], PetscBool ok)
{
  PetscFunctionBeginUser;
  test->checks++;
  if (!ok) test->failures++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s\n", ok ? "ok  " : "FAIL", what));
  PetscFunctionReturn(0);
}

static inline PetscErrorCode MbsTestFinish(MbsTest *test)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks, %" PetscInt_FMT " failed\n", test->checks, test->failures));
  PetscCheck(test->failures == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " of %" PetscInt_FMT " checks failed", test->failures, test->checks);
  PetscCheck(test->checks > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The test checked nothing");
  PetscFunctionReturn(0);
}
