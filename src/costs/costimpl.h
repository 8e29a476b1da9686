/* What a cost implements (registry in cost.c, one file per cost). */
#pragma once

#include "core/coreimpl.h"

/*
  What a cost implements. The discrete cost J depends on the output y_n at the nodes of the signal only, in one of
  two ways. An integral cost (spectrum) has dJ/dy_n = c_n r'(t_n, y_n) on the integrator's quadrature nodes, c_n
  their weights and r' the cost's adjoint density: the adjoint solve integrates r' with the integrator's own rule. A
  cost on measured samples (time) reads y at step points only, which the integrator lands on (MbsModelSetSampleTimes),
  and gives dJ/dy_n there: the adjoint solve adds it to dJ/dU_n at that step. Either way the gradient is exact for
  the discrete J.
*/
#define MBS_COST_SLOTS 2 /* recorded comparisons: 0 initial, 1 identified */
typedef struct {
  /* reads the cost's options */
  PetscErrorCode (*set_from_options)(MbsCost);
  /* takes what the cost needs of the measurement (file name for messages); the measurement must outlive the cost */
  PetscErrorCode (*set_up)(MbsCost, const char[], const MbsMeasurement *);
  /* a cost on the model itself that simulates nothing (frf: the linearisation's frequency response), on the whole cost:
     J, (grad not NULL) dJ/dp of the parameters id and (G not NULL) its Gauss-Newton matrix (nid x nid, added into);
     NULL: a cost on a simulated signal */
  PetscErrorCode (*gradient)(MbsCost, PetscInt, const PetscInt[], PetscReal *, PetscReal[], PetscReal[]);
  /* J of a simulated signal; keeps what the adjoint density needs */
  PetscErrorCode (*evaluate)(MbsCost, const MbsSignal *, PetscReal *);
  /* why evaluate cannot use a signal whose integration succeeded (an empty message: it can; NULL: always can): a
     spectrum cannot where a step in a window aliases one of its frequencies, which adaptive steps may do at some
     parameters and not at others */
  PetscErrorCode (*usable)(MbsCost, const MbsSignal *, char[], size_t);
  /* r'(t, y) after evaluate; NULL for a cost on step points */
  PetscErrorCode (*density)(MbsCost, PetscReal, PetscReal, PetscReal *);
  /* dJ/dy_n at step point n (time t_n) of the signal of the last evaluate; NULL for an integral cost */
  PetscErrorCode (*step_point)(MbsCost, PetscInt, PetscReal, PetscReal *);
  /* after evaluate: J = sum_i w_i r_i^2 as m residuals r_i with weights w_i, and how each residual moves with the
     measured values d_l that carry the noise, r_i += dr_dd[2i] dd_{data[2i]} + dr_dd[2i+1] dd_{data[2i+1]} (two
     values at most: an interpolation between samples; an unused entry has weight 0). ndata bounds the indices.
     With r NULL only m and ndata are returned. */
  PetscErrorCode (*residuals)(MbsCost, const MbsSignal *, PetscInt *, PetscInt *, PetscReal[], PetscReal[], PetscInt[], PetscReal[]);
  /* after residuals: the derivatives of the m residuals along ndir tangent signals (the derivatives of the signal
     along directions in the parameters, on the same steps and nodes), dr[i ndir + k] for direction k; NULL: the cost
     gives no Jacobian of its residuals (a Gauss-Newton method cannot use it) */
  PetscErrorCode (*residuals_tangent)(MbsCost, const MbsSignal *, PetscInt, const MbsSignal[], PetscReal[]);
  /* J of a model output that is zero everywhere, after set_up: the channel's measured power in the cost's own measure,
     whose inverse is the channel's default weight */
  PetscErrorCode (*zero_output)(MbsCost, PetscReal *);
  /* keeps the model's curve (spectrum, orders or signal) of a signal in a slot, for the result file */
  PetscErrorCode (*record)(MbsCost, const MbsSignal *, PetscInt);
  /* writes the measured curve and the recorded ones */
  PetscErrorCode (*write)(MbsCost, MbsH5Writer *);
  PetscErrorCode (*destroy)(MbsCost);
} MbsCostOps;

/* The read-only view of a cost (tests/check_layers.py; see modelimpl.h): what describes it, set up once
   view _p_MbsCost: type noise_of
*/
struct _p_MbsCost {
  char        type[32];
  char        measurement[PETSC_MAX_PATH_LEN];    /* the file it compares with, for messages */
  const char *noise_of;                           /* the measured values the residuals' data map refers to */
  char        unusable[PETSC_MAX_PATH_LEN + 512]; /* why the last signal was not usable (MbsCostSignalUsable), empty: it was */
  MbsModel    model;
  MbsCostOps  ops;
  void       *data;
  /* the measured channels, each compared by a part (a cost of the same type on that channel alone): J = sum_c w_c J_c */
  PetscInt    npart;
  MbsCost    *part;
  PetscReal  *weight;                /* w_c */
  PetscInt   *part_channel;          /* the model's output channel of each part (its channel) */
  PetscReal  *part_y, *part_w;       /* y_c of each part's channel at a state, and w_c times dJ_c/dy_c there */
  PetscReal   density_t;             /* the time of the density's weights (MbsCostDensity()) */
  char        channels[1024];        /* -channels: the channels to compare, comma separated ("": every measured one) */
  char        channel_weights[1024]; /* -channel_weights NAME:w,... */
  PetscInt    channel;               /* of a part: the model's output channel, -1: the model's output y (a one-channel file) */
  char        channel_name[64];      /* of a part: the measured channel's name, "" for the root of a one-channel file */
  const char *unit;                  /* of a part: the unit of its channel */
};

PETSC_INTERN PetscErrorCode MbsCostCreate_Spectrum(MbsCost);
PETSC_INTERN PetscErrorCode MbsCostCreate_Time(MbsCost);
PETSC_INTERN PetscErrorCode MbsCostCreate_Frf(MbsCost);
PETSC_INTERN PetscErrorCode MbsCostSimulates(MbsCost, PetscBool *);
PETSC_INTERN PetscErrorCode MbsCostGradient(MbsCost, PetscInt, const PetscInt[], PetscReal *, PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsCostWrite(MbsCost, MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsCostGetAdjointTerms(MbsCost, PetscBool *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsCostGetUnusable(MbsCost, const char **);
PETSC_INTERN PetscErrorCode MbsCostStepPoint(MbsCost, PetscInt, PetscReal, const PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsCostStepPointP(MbsCost, PetscInt, PetscReal, const PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsCostResiduals(MbsCost, const MbsSignal *, PetscInt *, PetscInt *, PetscReal[], PetscReal[], PetscInt[], PetscReal[], PetscInt[]);
PETSC_INTERN PetscErrorCode MbsCostResidualsTangent(MbsCost, const MbsSignal *, PetscInt, const MbsSignal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsCostGetNumChannels(MbsCost, PetscInt *);
PETSC_INTERN PetscErrorCode MbsCostGetChannel(MbsCost, PetscInt, const char **, const char **);
