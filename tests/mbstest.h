/* Checks shared by the test programs: each comparison is printed, and counted when it fails. */
#pragma once

#include <fcntl.h>
#include <unistd.h>
#include "mbsid.h"

typedef struct {
  PetscInt checks, failures;
} MbsTest;

/* An error handler that keeps the first message of an error (PetscPushErrorHandler(MbsTestCaptureError, &captured)) */
typedef struct {
  char message[1024];
} MbsTestCapturedError;

static inline PetscErrorCode MbsTestCaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  MbsTestCapturedError *captured = (MbsTestCapturedError *)ctx;

  if (p == PETSC_ERROR_INITIAL && mess) PetscStrncpy(captured->message, mess, sizeof(captured->message));
  return n;
}

/* The descriptor the next open file gets: the lowest free one, so a file left open moves it */
static inline int MbsTestNextDescriptor(void)
{
  int fd = open("/dev/null", O_RDONLY);

  if (fd >= 0) close(fd);
  return fd;
}

/* The rotation by the vector phi (Rodrigues), R[3 i + j] = R_ij */
static inline void MbsTestRotation(const PetscReal phi[3], PetscReal R[9])
{
  PetscReal angle = PetscSqrtReal(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]), n[3], c = PetscCosReal(angle), s = PetscSinReal(angle);

  for (PetscInt k = 0; k < 3; k++) n[k] = phi[k] / angle;
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) R[3 * i + j] = (i == j ? c : 0) + (1 - c) * n[i] * n[j] + s * (i == (j + 1) % 3 ? n[(j + 2) % 3] : i == (j + 2) % 3 ? -n[(j + 1) % 3] : 0);
}

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

/* The companion pencil of (l^2 M + l C + K) x = 0 (nq x nq, column-major): [0 I; -K -C] z = l [I 0; 0 M] z */
static inline PetscErrorCode MbsTestCompanionPencil(PetscInt nq, const PetscReal M[], const PetscReal C[], const PetscReal K[], Mat *A, Mat *B)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, 2 * nq, 2 * nq, NULL, A));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, 2 * nq, 2 * nq, NULL, B));
  for (PetscInt i = 0; i < nq; i++) {
    PetscCall(MatSetValue(*A, i, nq + i, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*B, i, i, 1.0, INSERT_VALUES));
    for (PetscInt j = 0; j < nq; j++) {
      PetscCall(MatSetValue(*A, nq + i, j, -K[i + j * nq], INSERT_VALUES));
      PetscCall(MatSetValue(*A, nq + i, nq + j, -C[i + j * nq], INSERT_VALUES));
      PetscCall(MatSetValue(*B, nq + i, nq + j, M[i + j * nq], INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}
