/* The numerical core: forward simulation (TS), Fourier and order analysis, eigen analysis (SLEPc). */
#pragma once

#include "models/modelimpl.h"

/* Order analysis in the time domain (engine4.md section 10) or following the crank angle (fourier.c) */
typedef enum {
  MBS_ORDER_DOMAIN_TIME,
  MBS_ORDER_DOMAIN_ANGLE
} MbsOrderDomain;
PETSC_INTERN const char *const MbsOrderDomains[];
PETSC_INTERN PetscErrorCode    MbsModelAllDifferential(MbsModel, PetscBool *);

/* Spectrum and order options shared by the commands (fourier.c) */
typedef struct {
  char            window[32], order_window[32];
  PetscReal       interval[2]; /* t_l, t_u of the spectrum [s] */
  PetscReal       band[2];     /* [Hz] */
  PetscBool       band_set;
  PetscReal       gain;
  PetscInt        norder;
  PetscReal       order[64];
  PetscInt        nspeed_range;   /* 0 (not given), 2 or 3 values of speed_range */
  PetscReal       speed_range[3]; /* lo, hi[, step] [rpm] */
  MbsSpeedProfile speed;          /* stationary_rpm > 0: orders of a stationary experiment, on its last -window_cycles revolutions */
  MbsOrderDomain  domain;
  PetscReal       window_cycles;
} MbsFourierOptions;

PETSC_INTERN PetscErrorCode MbsFourierOptionsRead(PetscReal, PetscReal, const MbsSpeedProfile *, MbsFourierOptions *);
PETSC_INTERN PetscErrorCode MbsFourierOptionsReset(MbsFourierOptions *);
PETSC_INTERN PetscErrorCode MbsFourierAddOrders(MbsFourier, const char[], const MbsSpeedProfile *, MbsOrderDomain, PetscInt, const PetscReal[], PetscInt, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsFourierOrderWindow(const MbsSpeedProfile *, MbsOrderDomain, PetscReal, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode MbsFourierGetOrderDomain(MbsFourier, const char **);

/* Forward simulation with a hook that configures the TS (e.g. for an adjoint) and optionally keeps it */
typedef PetscErrorCode (*MbsTSSetUpFn)(TS, void *);
PETSC_INTERN PetscErrorCode MbsSimulate_Private(MbsModel, const char[], MbsTSSetUpFn, void *, MbsStateMonitor, void *, MbsSignal *, TS *);
PETSC_INTERN PetscErrorCode MbsProgressDue(PetscLogDouble *, PetscBool *);
/* mbsid's trajectory of Runge-Kutta solves for their adjoint (trajectory.c) */
#define MBS_TSTRAJECTORY_STAGES "stages"
PETSC_INTERN PetscErrorCode MbsTSTrajectoryRegisterStages(void);
/* the sparse Jacobian's LU by KLU, its pivots reused while their growth allows (klu_refactor.c) */
PETSC_INTERN PetscErrorCode MbsPCSetKLURefactor(PC);
PETSC_INTERN PetscErrorCode MbsPCGetKLUCounts(PC, PetscInt *, PetscInt *, PetscInt *);
/* its factors kept across matrices, each solve refined (MbsPCSetKLUReuse(), for the adjoint's transposed solves) */
typedef struct {
  PetscInt nsetup;         /* matrices set up while reusing */
  PetscInt nfactor;        /* of them and of the solves below, those factored afresh */
  PetscInt nsolve;         /* solves refined on kept factors to the backward error of rounding */
  PetscInt ncorrection;    /* corrections of those solves, in all */
  PetscInt max_correction; /* the most one of them needed */
  PetscInt nfail;          /* solves not refined within the allowed corrections: factored afresh and solved again */
} MbsKLUReuseCounts;
PETSC_INTERN PetscErrorCode MbsPCSetKLUReuse(PC, PetscInt);
PETSC_INTERN PetscErrorCode MbsPCGetKLUReuseCounts(PC, MbsKLUReuseCounts *);
PETSC_INTERN PetscErrorCode MbsTSSetKLUReuse(TS, PetscInt);

/* /eigen groups of a result file (eigen.c) */
PETSC_INTERN PetscErrorCode MbsEigenWrite(MbsH5Writer *, const char[], const MbsEigenResult *);
