/* The identification problem: the adjoint gradient of a cost, experiments over ranks, the objective TAO sees, the cost scan. */
#pragma once

#include "costs/costimpl.h"
#include <petsctao.h>

/*
  An integral cost J = int r(t, U) dt + w(U(tf)) (+ terms at step points) of a model's state, integrated with the
  integrator's own rule and differentiated by one discrete adjoint solve (adjoint.c). r may have several components when no gradient is asked
  (e.g. a Fisher matrix); the first is the cost.
*/
typedef struct {
  const char *name;    /* for messages */
  PetscInt    ncomp;   /* components of r */
  PetscBool   forward; /* integrate r during the forward solve (Q returned); otherwise r only feeds the adjoint */
  /* r(t, U) (ncomp) and, each when not NULL, dr_0/dU (n) and the direct dr_0/dp (np, only with integrand_p), zeroed by
     the caller: a node's derivatives from one evaluation */
  PetscErrorCode (*integrand)(MbsModel, PetscReal, const PetscReal[], PetscReal[], PetscReal[], PetscReal[], void *);
  /* w(U(tf)) (w may be NULL) and dw/dU (n, zeroed by the caller); NULL: no terminal term */
  PetscErrorCode (*terminal)(MbsModel, const PetscReal[], PetscReal *, PetscReal[], void *);
  /* sees the forward signal before the adjoint solve and says whether the integrand can use it (a signal it cannot
     use counts as a failed integration); may be NULL */
  PetscErrorCode (*prepare)(MbsModel, const MbsSignal *, void *, PetscBool *);
  void *ctx;
  /* adds to dJ/dU (n) the derivative of a term of J at step point step (time t, state U); NULL: none */
  PetscErrorCode (*step_point)(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal[], void *);
  /* the parts through an output that depends on the parameters directly (MbsModelOutputP): whether the integrand has a
     dr_0/dp (its drdp), and the step-point terms' dJ/dp, added into np entries (the model's parameters; NULL: none) */
  PetscBool integrand_p;
  PetscErrorCode (*step_point_p)(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal[], void *);
} MbsIntegralCost;

PETSC_INTERN PetscErrorCode MbsIntegralGradient(MbsModel, const MbsIntegralCost *, PetscInt, const PetscInt[], MbsStateMonitor, void *, PetscReal[], PetscReal[], PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsJacobianPCreate(MbsModel, PetscInt, const PetscInt[], Mat *, PetscReal **);
PETSC_INTERN PetscErrorCode MbsJacobianPCompute(MbsModel, PetscInt, const PetscInt[], PetscReal[], PetscReal, Vec, Vec, Mat);

/* The optimal input design problem (design.c) */
#define MBS_DESIGN_MAX_PARAMETERS 4
struct _p_MbsDesign {
  MPI_Comm   comm;
  MbsModel   base, ext; /* the model and its sensitivity-extended system */
  PetscInt   nb, b[MBS_DESIGN_MAX_PARAMETERS];
  PetscInt   nnodes, *node_id; /* nodes, and their indices among the extended model's parameters */
  PetscReal *t_nodes, *F;      /* node times [s] and the starting input [N] */
  PetscReal  force_max, end_weight, cost_scale;
  PetscInt   nend, end[4];
  PetscReal *dydu;    /* of the base output (linear in U) */
  PetscBool  fisher;  /* the integrand adds the Fisher matrix */
  PetscReal  penalty; /* rho of the evaluation under way */
};

PETSC_INTERN PetscErrorCode MbsDesignCheckOk(MbsDesign, PetscBool);
PETSC_INTERN PetscErrorCode MbsDesignUnits(MbsDesign, const char[], char[], size_t);

/* The identification error surface E_RMS of an input (design_error.c, section 8 of the design specs) */
#define MBS_DESIGN_MAX_NOISE 3
typedef struct {
  PetscReal sample_dt;                           /* [s] */
  PetscInt  nnoise;                              /* noise levels */
  PetscReal noise[MBS_DESIGN_MAX_NOISE];         /* sigma, in the output unit */
  PetscInt  seed;                                /* of the standard-normal sequence */
  PetscReal grid[3 * MBS_DESIGN_MAX_PARAMETERS]; /* lo, hi, count per parameter (nb <= 2) */
} MbsDesignErrorSettings;

typedef struct {
  PetscBool  done;
  PetscInt   nsample, ngrid[2];
  PetscReal *t_sample, *response;                                 /* the true output at the sample times */
  PetscReal *grid_values[2];                                      /* parameter values of the grid */
  PetscReal  H[4], H_rel[4];                                      /* sum S^T S at the truth (Gauss-Newton, exact for sigma = 0) and D H D, D = diag(b) */
  PetscReal  eig[2], eig_rel[2], condition, condition_rel, angle; /* angle [deg] of the eigenvector of max eig_rel from the b_1 axis */
  PetscInt   nnoise;
  PetscReal  noise[MBS_DESIGN_MAX_NOISE];
  PetscReal *E[MBS_DESIGN_MAX_NOISE];           /* E_RMS on the grid, row-major (b_1 rows) */
  PetscReal  hessian[MBS_DESIGN_MAX_NOISE][4];  /* exact d2E/db2 at the truth */
  PetscReal  estimate[MBS_DESIGN_MAX_NOISE][2]; /* argmin E_RMS by Newton from the truth */
  PetscInt   newton_its[MBS_DESIGN_MAX_NOISE];
  PetscReal  noise_sum, noise_sum2, noise_first[4]; /* the sequence n_i */
} MbsDesignError;

PETSC_INTERN PetscErrorCode MbsDesignErrorSettingsDefault(MbsDesign, MbsDesignErrorSettings *);
PETSC_INTERN PetscErrorCode MbsDesignErrorSetFromOptions(MbsDesign, PetscOptionItems *, MbsDesignErrorSettings *);
PETSC_INTERN PetscErrorCode MbsDesignErrorCompute(MbsDesign, const MbsDesignErrorSettings *, MbsDesignError *);
PETSC_INTERN PetscErrorCode MbsDesignErrorView(MbsDesign, const MbsDesignError *);
PETSC_INTERN PetscErrorCode MbsDesignErrorWrite(MbsDesign, MbsH5Writer *, const char[], const MbsDesignError *);
PETSC_INTERN PetscErrorCode MbsDesignErrorReset(MbsDesignError *);

/* An input of a design evaluated: the results the command design prints and writes (design_result.c) */
typedef struct {
  PetscBool      done, nodal;
  PetscReal     *F; /* nodal forces (nodal inputs) */
  PetscReal      J, trace, M[MBS_DESIGN_MAX_PARAMETERS * MBS_DESIGN_MAX_PARAMETERS], eig[MBS_DESIGN_MAX_PARAMETERS], condition;
  PetscReal     *z_end;
  PetscInt       nstates; /* extended states at the -design_print_states times */
  PetscReal     *states, *state_times;
  MbsDesignError error;
} MbsDesignResult;

PETSC_INTERN PetscErrorCode MbsDesignView(MbsDesign);
PETSC_INTERN PetscErrorCode MbsDesignGetModels(MbsDesign, MbsModel *, MbsModel *);
PETSC_INTERN PetscErrorCode MbsDesignGetInput(MbsDesign, const PetscReal *[], const PetscReal *[]);
PETSC_INTERN PetscErrorCode MbsDesignSineInput(MbsDesign, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsDesignOptimize(MbsDesign, PetscInt, PetscReal[], PetscInt *, TaoConvergedReason *);
PETSC_INTERN PetscErrorCode MbsDesignGradcheck(MbsDesign, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode MbsDesignViewGradient(MbsDesign);
PETSC_INTERN PetscErrorCode MbsDesignResultEvaluate(MbsDesign, MbsDesignResult *, PetscInt, const PetscReal[], PetscBool, const MbsDesignErrorSettings *);
PETSC_INTERN PetscErrorCode MbsDesignResultView(MbsDesign, const MbsDesignResult *, const char[]);
PETSC_INTERN PetscErrorCode MbsDesignResultViewGain(MbsDesign, const MbsDesignResult *, const MbsDesignResult *, const MbsDesignResult *);
PETSC_INTERN PetscErrorCode MbsDesignResultWrite(MbsDesign, MbsH5Writer *, const MbsDesignResult *, const char[]);
PETSC_INTERN PetscErrorCode MbsDesignResultReset(MbsDesignResult *);

/* One experiment of an identification: its own options, model, cost and measurement (experiment.c) */
typedef struct {
  char           name[64];
  PetscOptions   options; /* the global options with this experiment's overrides */
  PetscBool      pushed;  /* options are the default database (MbsExperimentOptionsPush()) */
  MbsModel       model;
  MbsCost        cost;
  MbsMeasurement meas;
  char           measurement[PETSC_MAX_PATH_LEN];
  PetscInt      *id;    /* the identified parameters in this experiment's model */
  PetscReal      steps; /* estimated time steps: the cost by which experiments are dealt to ranks */
  PetscMPIInt    rank;  /* the rank that computes it */
  PetscLogDouble busy;  /* wall time spent in its solves [s] */
} MbsExperiment;

PETSC_INTERN PetscErrorCode MbsExperimentsCreate(MPI_Comm, PetscInt *, MbsExperiment **);
PETSC_INTERN PetscErrorCode MbsExperimentsDistribute(PetscInt, MbsExperiment[], PetscMPIInt);
PETSC_INTERN PetscErrorCode MbsExperimentOptionsPush(MbsExperiment *);
PETSC_INTERN PetscErrorCode MbsExperimentOptionsPop(MbsExperiment *);
PETSC_INTERN PetscErrorCode MbsExperimentOptionsDestroy(MbsExperiment *);

/* The identification problem of the commands gradcheck, identify and scan (objective.c) */
typedef struct _p_MbsObjective *MbsObjective;
struct _p_MbsObjective {
  MPI_Comm       comm;
  PetscInt       nexp;
  MbsExperiment *exp;
  MbsModel       model; /* of the first experiment: parameter names, units, bounds */
  MbsCost        cost;  /* of the first experiment */
  PetscInt       nid;
  PetscInt      *id;     /* identified parameters in the first experiment's model */
  PetscInt       nevals; /* evaluations of J so far */
  PetscReal     *J_exp;  /* per-experiment cost and gradient of the last evaluation (nexp, nexp x nid) */
  PetscReal     *g_exp;
  /* work a rank that computes no experiment does while it waits for the others' evaluation (MbsObjectiveSetIdleWork) */
  PetscErrorCode (*idle_work)(void *, PetscBool *);
  void *idle_ctx;
};

typedef PetscErrorCode (*MbsObjectiveWriteFn)(MbsObjective, MbsH5Writer *, void *);

PETSC_INTERN PetscErrorCode MbsObjectiveCreate(MPI_Comm, MbsObjective *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveDestroy(MbsObjective *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetComm(MbsObjective, MPI_Comm *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetNumParameters(MbsObjective, PetscInt *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetModel(MbsObjective, MbsModel *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetParameterInfo(MbsObjective, PetscInt, const MbsParameterInfo **);
PETSC_INTERN PetscErrorCode MbsObjectiveGetCost(MbsObjective, MbsCost *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetExperimentName(MbsObjective, PetscInt, const char **);
PETSC_INTERN PetscErrorCode MbsObjectiveViewUnusable(MbsObjective);
PETSC_INTERN PetscErrorCode MbsObjectiveEigen(MbsObjective, const PetscReal[], MbsEigenResult *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetValues(MbsObjective, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsObjectiveGetEvaluations(MbsObjective, PetscInt *);
PETSC_INTERN PetscErrorCode MbsObjectiveSetValues(MbsObjective, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluate(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluateGaussNewton(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluateLocal(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveSetIdleWork(MbsObjective, PetscErrorCode (*)(void *, PetscBool *), void *);
PETSC_INTERN PetscErrorCode MbsObjectiveRecord(MbsObjective, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode MbsObjectiveFreezeSteps(MbsObjective, PetscBool);
PETSC_INTERN PetscErrorCode MbsObjectiveWriteFile(MbsObjective, const char[], const PetscReal[], const PetscReal[], MbsObjectiveWriteFn, void *);

/* The residuals of one forward solve of a cost (MbsCostResiduals()): m residuals r with weights w, over ndata measured
   values, each residual's measured values data, dr/dd (2 per residual) and channel */
typedef struct {
  MbsCost    cost;
  PetscInt   m, ndata;
  PetscReal *r, *w, *dr_dd;
  PetscInt  *data, *channel;
} MbsResidualSet;
PETSC_INTERN PetscErrorCode MbsResidualSetCompute(MbsResidualSet *, const MbsSignal *);
PETSC_INTERN PetscErrorCode MbsResidualSetReset(MbsResidualSet *);

/* The objective as least squares, J = rho^T rho, with the Jacobian drho/dp from forward sensitivities (least_squares.c),
   and TAO's Levenberg-Marquardt method on it (tao_lm.c) */
PETSC_INTERN PetscErrorCode MbsExperimentLeastSquares(MbsObjective, PetscInt, PetscBool, PetscInt *, PetscReal **, PetscReal **, PetscBool *, MbsResidualSet *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveLeastSquares(MbsObjective, const PetscReal[], PetscBool, PetscInt *, PetscReal **, PetscReal **, PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveCheckLeastSquares(MbsObjective, const PetscReal[], const PetscReal[], PetscReal, PetscReal);
#define TAOMBSLM "mbslm"
PETSC_INTERN PetscErrorCode MbsTaoRegisterLM(void);
/* The state of mbslm between iterations (TaoMbsLMGetState): these scalars, then g (n), then H (n x n) */
enum {
  MBS_LM_STATE_NITER,
  MBS_LM_STATE_F,
  MBS_LM_STATE_GNORM0,
  MBS_LM_STATE_LAMBDA,
  MBS_LM_STATE_NU,
  MBS_LM_STATE_STEP,
  MBS_LM_STATE_SCALARS
};
#define MBS_LM_STATE_SIZE(n) (MBS_LM_STATE_SCALARS + (n) + (n) * (n))
PETSC_INTERN PetscErrorCode TaoMbsLMGetState(Tao, PetscReal[]);
PETSC_INTERN PetscErrorCode TaoMbsLMSetState(Tao, PetscInt, const PetscReal[]);

/* The confidence of identified parameters: Gauss-Newton covariance, intervals, Fisher information (confidence.c) */
typedef struct {
  PetscInt     n;
  PetscBool    valid; /* otherwise reason says why no statistics were formed */
  char         reason[256];
  PetscReal    step;    /* relative step of the central differences dr/dp */
  PetscInt     solves;  /* forward solves per experiment */
  PetscBool    forward; /* dr/dp of every experiment from forward sensitivities, not differences */
  PetscInt     nresidual, ndata, dof;
  PetscReal    J, quantile, condition;
  PetscInt     nchannel;                                         /* measured channels, each with its own noise */
  PetscReal   *sigma;                                            /* nchannel: the noise of each channel's measured values */
  PetscBool   *given;                                            /* nchannel: sigma given; otherwise estimated from the residual */
  const char **channel_name, **channel_unit;                     /* nchannel, the cost's; "" for a one-channel file */
  const char  *noise_of;                                         /* which measured values sigma refers to */
  PetscReal   *estimate, *std, *lower, *upper;                   /* n */
  PetscReal   *scale;                                            /* n: the size each parameter is measured in, |estimate| or, near 0, the identification's size */
  PetscReal   *gauss_newton, *covariance, *correlation, *fisher; /* n x n, row-major */
} MbsConfidence;

PETSC_INTERN PetscErrorCode MbsObjectiveConfidence(MbsObjective, const PetscReal[], const PetscReal[], PetscReal, const char[], PetscBool, PetscReal, MbsConfidence *);
PETSC_INTERN PetscErrorCode MbsObjectiveCheckChannelNoise(MbsObjective, const char[]);
PETSC_INTERN PetscErrorCode MbsConfidenceView(MbsObjective, const MbsConfidence *);
PETSC_INTERN PetscErrorCode MbsConfidenceWrite(MbsH5Writer *, const MbsConfidence *);
PETSC_INTERN PetscErrorCode MbsConfidenceReset(MbsConfidence *);

/* Checkpoint and restart of an identification: the log of TAO's evaluations (checkpoint.c) */
typedef struct _p_MbsCheckpoint *MbsCheckpoint;
struct _p_MbsCheckpoint {
  MbsObjective        obj;
  char                path[PETSC_MAX_PATH_LEN];    /* written ("" for none) */
  PetscBool           catching;                    /* stop requests are caught (MbsInterruptCatch()) */
  char                restart[PETSC_MAX_PATH_LEN]; /* read ("" for none) */
  char               *options, *inputs;            /* what the numbers depend on, as "key value" lines */
  PetscReal           J0, J0_saved;                /* J at the start: of this run, of the restart file */
  PetscInt            n, nalloc;                   /* evaluations logged */
  PetscReal          *x, *J, *g, *ok, *time;       /* each evaluation's point, cost, gradient, success, wall time */
  PetscInt            nreplay, next;               /* evaluations a restart replays; the index of the next one */
  PetscLogDouble      start;                       /* the clock: offset + (now - start) */
  PetscReal           offset;
  PetscReal          *state; /* a solver's state instead of a log to replay (mbslm, TaoMbsLMGetState), NULL: none */
  PetscInt            nstate;
  PetscReal           state_time; /* the wall time when it was taken [s] */
  MbsObjectiveWriteFn history;    /* adds the iteration history to the file */
  void               *history_ctx;
};

PETSC_INTERN PetscErrorCode MbsCheckpointCreate(MbsObjective, MbsObjectiveWriteFn, void *, MbsCheckpoint *);
PETSC_INTERN PetscErrorCode MbsCheckpointStart(MbsCheckpoint, PetscReal);
PETSC_INTERN PetscErrorCode MbsCheckpointReplay(MbsCheckpoint, const PetscScalar[], PetscReal *, PetscReal[], PetscBool *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsCheckpointStopIfRequested(MbsCheckpoint);
PETSC_INTERN PetscErrorCode MbsCheckpointSetState(MbsCheckpoint, PetscInt, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsCheckpointGetState(MbsCheckpoint, PetscInt *, const PetscReal **);
PETSC_INTERN PetscErrorCode MbsCheckpointReadRestart(MbsCheckpoint, PetscInt, const char *const[], const PetscInt[], PetscInt[], PetscReal *[]);
PETSC_INTERN PetscErrorCode MbsCheckpointRestartFree(PetscInt, PetscReal *[]);
PETSC_INTERN PetscErrorCode MbsCheckpointRecord(MbsCheckpoint, const PetscScalar[], PetscReal, const PetscReal[], PetscBool);
PETSC_INTERN PetscErrorCode MbsCheckpointElapsed(MbsCheckpoint, PetscReal *);
PETSC_INTERN PetscErrorCode MbsCheckpointGetCounts(MbsCheckpoint, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode MbsCheckpointGetFiles(MbsCheckpoint, const char **, const char **);
PETSC_INTERN PetscErrorCode MbsCheckpointWrite(MbsCheckpoint, const char[]);
PETSC_INTERN PetscErrorCode MbsCheckpointDestroy(MbsCheckpoint *);

/* A J scan on a grid of the two identified parameters (scan.c): it stands above the objective it evaluates */
typedef struct _p_MbsScan *MbsScan;

PETSC_INTERN PetscErrorCode MbsScanCreate(MbsObjective, MbsScan *);
PETSC_INTERN PetscErrorCode MbsScanRun(MbsScan);
PETSC_INTERN PetscErrorCode MbsScanWorkAhead(void *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsScanWrite(MbsObjective, MbsH5Writer *, void *);
PETSC_INTERN PetscErrorCode MbsScanDestroy(MbsScan *);
