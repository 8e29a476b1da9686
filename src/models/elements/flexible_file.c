/*
  The file of a flexible body (doc/model-files.md, "The file of a flexible body"; written by mbsid beam): the first nmode modes, checked for what the
  formulation of flexible.c assumes (mass-normalised modes, a diagonal modal stiffness).

  The file's slot inertia loses its terms (e_k, gamma_jk): on the manifold e_k' . gamma_jk' = delta_j |e_k'|^2, a
  centrifugal term of order delta Omega^2 that vanishes at rest, and with the section's rotary inertia taken out of
  the rigid rotations (mbsid beam) it would make the mass matrix indefinite.
*/
#include "models/elements/elementimpl.h"
#include <petscblaslapack.h>

/* The file's datasets (doc/model-files.md, "The file of a flexible body"), the first nmode modes, and the checks of what the formulation assumes */
static PetscErrorCode ReadFile_Private(const char where[], hid_t file, const char path[], MbsFlexible *flexible, PetscReal *data[4])
{
  PetscInt  dims[4][2], n = flexible->nmode, nfile, ns, nsfile;
  PetscReal scale      = 0;
  char      format[64] = "", reduction[64] = "";
  PetscBool found;

  PetscFunctionBeginUser;
  PetscCall(MbsH5ReadAttribute(file, path, "/", "format", format, sizeof(format), &found));
  PetscCheck(found && !strcmp(format, "mbsid flexible body 1"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s' is no flexible-body file: its attribute format is '%s', not 'mbsid flexible body 1'", where, path, format);
  PetscCall(MbsH5ReadAttribute(file, path, "/", "reduction", reduction, sizeof(reduction), &found));
  PetscCheck(found && (!strcmp(reduction, "free-interface") || !strcmp(reduction, "free-interface+attachment")), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s': reduction '%s'; only free-interface modes, with attachment modes or without (mass-normalised, diagonal modal stiffness), are supported", where, path, reduction);
  PetscCall(MbsH5ReadReals(file, path, "/nodes/coordinates", 2, dims[0], &data[0], "m", NULL));
  PetscCall(MbsH5ReadReals(file, path, "/modes/translation", 2, dims[1], &data[1], "m", NULL));
  PetscCall(MbsH5ReadReals(file, path, "/modes/stiffness", 2, dims[2], &data[2], "1/s^2", NULL));
  PetscCall(MbsH5ReadReals(file, path, "/inertia/slots", 2, dims[3], &data[3], NULL, NULL));
  nfile  = dims[2][0];
  nsfile = 4 + 3 * nfile;
  PetscCheck(dims[0][1] == 3 && dims[1][0] == 3 * dims[0][0] && dims[1][1] == nfile && dims[2][1] == nfile && dims[3][0] == nsfile && dims[3][1] == nsfile, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s': the datasets disagree in size: /nodes/coordinates %" PetscInt_FMT " x %" PetscInt_FMT " (N x 3), /modes/translation %" PetscInt_FMT " x %" PetscInt_FMT " (3 N x n), /modes/stiffness %" PetscInt_FMT " x %" PetscInt_FMT " (n x n), /inertia/slots %" PetscInt_FMT " x %" PetscInt_FMT " ((4 + 3 n) square)", where, path, dims[0][0], dims[0][1], dims[1][0], dims[1][1], dims[2][0], dims[2][1], dims[3][0], dims[3][1]);
  PetscCheck(n <= nfile, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: modes: %" PetscInt_FMT ", but '%s' has %" PetscInt_FMT, where, n, path, nfile);
  flexible->nnode = dims[0][0];
  flexible->nslot = ns = 4 + 3 * n;
  PetscCall(PetscMalloc5(ns * ns, &flexible->slot_mass, 3 * flexible->nnode, &flexible->x, 3 * n * flexible->nnode, &flexible->shape, 9 * n * n, &flexible->unit, n, &flexible->stiffness));
  PetscCall(PetscArraycpy(flexible->x, data[0], 3 * flexible->nnode));
  for (PetscInt i = 0; i < flexible->nnode; i++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < 3; k++) flexible->shape[3 * n * i + 3 * j + k] = data[1][(3 * i + k) * nfile + j];
  for (PetscInt j = 0; j < n; j++) { /* rounding, as of a bending mode's axial motion, is taken as 0 (as in the slot inertia) */
    PetscReal largest = 0;

    for (PetscInt i = 0; i < 3 * flexible->nnode; i++) largest = PetscMax(largest, PetscAbsReal(flexible->shape[3 * n * (i / 3) + 3 * j + i % 3]));
    for (PetscInt i = 0; i < 3 * flexible->nnode; i++)
      if (PetscAbsReal(flexible->shape[3 * n * (i / 3) + 3 * j + i % 3]) <= 1e-9 * largest) flexible->shape[3 * n * (i / 3) + 3 * j + i % 3] = 0;
  }
  for (PetscInt i = 0; i < 9 * n * n; i++) flexible->unit[i] = (PetscReal)(i % (3 * n + 1) == 0);
  for (PetscInt s = 0; s < ns; s++)
    for (PetscInt t = 0; t < ns; t++) flexible->slot_mass[s * ns + t] = data[3][s * nsfile + t];
  for (PetscInt j = 0; j < n; j++) {
    flexible->stiffness[j] = data[2][j * nfile + j];
    scale                  = PetscMax(scale, flexible->stiffness[j]);
    PetscCheck(flexible->stiffness[j] > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s': /modes/stiffness[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g; the modal stiffness omega^2 of an elastic mode must be positive", where, path, j, j,
               (double)flexible->stiffness[j]);
  }
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt l = 0; l < n; l++) {
      PetscReal modal_mass = 0;

      for (PetscInt k = 0; k < 3; k++) modal_mass += flexible->slot_mass[(4 + 3 * j + k) * ns + 4 + 3 * l + k];
      PetscCheck(j == l || PetscAbsReal(data[2][j * nfile + l]) <= 1e-9 * scale, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s': /modes/stiffness[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g; free-interface modes have a diagonal modal stiffness", where, path, j, l, (double)data[2][j * nfile + l]);
      PetscCheck(PetscAbsReal(modal_mass - (j == l)) <= 1e-6, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s': the modal mass of modes %" PetscInt_FMT " and %" PetscInt_FMT " (sum_k of /inertia/slots[4 + 3 j + k][4 + 3 l + k]) is %g; the modes must be mass-normalised", where, path, j, l, (double)modal_mass);
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode CloseFile(hid_t h5, PetscReal *data[4])
{
  PetscFunctionBeginUser;
  (void)H5Fclose(h5);
  for (PetscInt i = 0; i < 4; i++) PetscCall(PetscFree(data[i]));
  PetscFunctionReturn(0);
}

/*
  Drops the terms (e_k, gamma_jk) of the file's slot inertia (header comment), and checks that what is left is
  positive semidefinite: a kinetic energy. It is singular (a bending mode's gamma_j1 has no mass; two modes of one shape
  in different directions, as a beam's first bending modes in y and z, give one massless combination): the formulation
  needs M positive definite only on the motions the constraints allow, else the index-1 system of the initial
  accelerations [M Phi_q^T; Phi_q 0] is singular and the model refuses to start.
*/
static PetscErrorCode DropCentrifugal(const char where[], const char path[], MbsFlexible *flexible)
{
  PetscInt     ns = flexible->nslot;
  PetscReal   *S  = flexible->slot_mass, *A, *w, *work, *D, lowest, highest;
  PetscBLASInt bn, lwork, info;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(ns * ns, &A, ns, &w, 8 * ns, &work, ns, &D));
  for (PetscInt j = 0; j < flexible->nmode; j++)
    for (PetscInt k = 0; k < 3; k++) S[(1 + k) * ns + 4 + 3 * j + k] = S[(4 + 3 * j + k) * ns + 1 + k] = 0;
  /* the rounding of the file's orthogonalities (modes to rigid motions, and to each other) is taken as 0: entries below
     1e-9 of the geometric mean of their slots' scales, a rigid slot's diagonal or a mode's modal mass */
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt g = s - (s - 4) % 3; /* the mode's first slot */

    D[s] = s < 4 ? S[s * (ns + 1)] : S[g * (ns + 1)] + S[(g + 1) * (ns + 1)] + S[(g + 2) * (ns + 1)];
  }
  for (PetscInt s = 0; s < ns; s++)
    for (PetscInt t = 0; t < ns; t++)
      if (s != t && PetscAbsReal(S[s * ns + t]) <= 1e-9 * PetscSqrtReal(D[s] * D[t])) S[s * ns + t] = 0;
  PetscCall(PetscBLASIntCast(ns, &bn));
  PetscCall(PetscBLASIntCast(8 * ns, &lwork));
  PetscCall(PetscArraycpy(A, S, ns * ns));
  LAPACKsyev_("N", "U", &bn, A, &bn, w, work, &lwork, &info);
  lowest  = w[0];
  highest = w[ns - 1];
  PetscCall(PetscFree4(A, w, work, D));
  PetscCheck(info == 0 && lowest >= -1e-10 * highest, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: '%s': /inertia/slots is no kinetic energy (smallest eigenvalue %g of largest %g, without its (e_k, gamma_jk) terms)", where, path, (double)lowest, (double)highest);
  PetscFunctionReturn(0);
}

/*@C
  MbsFlexibleReadFile - The first flexible->nmode modes of the flexible-body file path (doc/model-files.md, "Flexible bodies"); errors start
  with where (the model file, line and body).
@*/
PetscErrorCode MbsFlexibleReadFile(const char where[], const char path[], MbsFlexible *flexible)
{
  PetscReal *data[4] = {NULL, NULL, NULL, NULL};
  hid_t      h5;

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  h5 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(h5 >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s: cannot open the flexible body's file '%s' (HDF5; mbsid beam writes one)", where, path);
  MbsCallCleanup(ReadFile_Private(where, h5, path, flexible, data), CloseFile(h5, data));
  PetscCall(DropCentrifugal(where, path, flexible));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsFlexibleDestroy(MbsFlexible **flexible)
{
  PetscFunctionBeginUser;
  if (!*flexible) PetscFunctionReturn(0);
  PetscCall(PetscFree5((*flexible)->slot_mass, (*flexible)->x, (*flexible)->shape, (*flexible)->unit, (*flexible)->stiffness));
  PetscCall(PetscFree(*flexible));
  PetscFunctionReturn(0);
}
