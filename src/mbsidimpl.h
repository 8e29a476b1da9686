/* Private declarations shared by the files of libmbsid. */
#pragma once

#include "mbsid.h"
#include <hdf5.h>
#include <unistd.h>

/*
  What a model file implements. Arrays are dense and column-major (entry (i, j) at [i + j*rows]),
  and the caller zeroes every output array before the call, so a model writes its non-zeros only.
*/
typedef struct {
  /* F(t, U, U', p), length n */
  PetscErrorCode (*residual)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  /* dF/dU + shift dF/dU', n x n */
  PetscErrorCode (*jacobian)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, PetscReal[]);
  /* dF/dp, n x np; columns of parameters that are not identifiable may stay zero */
  PetscErrorCode (*jacobian_p)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  /* y(U) and dy/dU (length n, may be NULL) */
  PetscErrorCode (*output)(MbsModel, PetscReal, const PetscReal[], PetscReal *, PetscReal[]);
  /* consistent U(t0), U'(t0) of a DAE; NULL for the ODE models U = (q, v), which start from -initial_q, -initial_v */
  PetscErrorCode (*initial_state)(MbsModel, PetscReal, PetscReal[], PetscReal[]);
  /* M, C, K (nq x nq) of the linearisation about the model's operating point */
  PetscErrorCode (*linearize)(MbsModel, PetscReal[], PetscReal[], PetscReal[]);
  /* external force F(t) [N], for reports and balance checks */
  PetscErrorCode (*excitation)(MbsModel, PetscReal, PetscReal *);
  /* options of the model itself (excitation, initial state), in the caller's options block */
  PetscErrorCode (*set_from_options)(MbsModel, PetscOptionItems *);
  PetscErrorCode (*destroy)(MbsModel);
} MbsModelOps;

struct _p_MbsModel {
  MPI_Comm                comm;
  char                    type[64];
  PetscInt                n;  /* state size */
  PetscInt                nq; /* coordinates of the linearisation */
  PetscInt                np;
  const MbsParameterInfo *param_info; /* np entries, static in the model file */
  PetscReal              *p;          /* current parameter values */
  const char             *output_name, *output_unit;
  PetscReal               t0, tf, dt;      /* default time span and step [s] */
  PetscReal               dt_max;          /* step cap for adaptive integration [s], 0: none */
  PetscBool              *differential;    /* n flags, PETSC_FALSE for algebraic components of a DAE */
  PetscBool               constant_mass;   /* dF/dU' does not depend on U: integrated as it is (integration_form.c) */
  PetscReal              *q0, *v0;         /* nq initial coordinates and rates of an ODE model */
  PetscBool               sparse_jacobian; /* the integrator assembles AIJ and factors it with KLU (simulate.c) */
  PetscReal              *jacobian_work;   /* n x n dense Jacobian the model writes into, for the sparse path */
  MbsModelOps             ops;
  void                   *data;
};

PETSC_INTERN PetscErrorCode MbsModelSetUp_Private(MbsModel, PetscInt, PetscInt, PetscInt, const MbsParameterInfo[]);
PETSC_INTERN PetscErrorCode MbsDenseSolve_Private(MbsModel, PetscInt, PetscReal[], PetscReal[]);

PETSC_INTERN PetscErrorCode MbsModelCreate_Oscillator2(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_CartPendulum(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_CartPendulumChain(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_Bushing2(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_SpringChain(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_Engine4(MbsModel);
PETSC_INTERN PetscErrorCode MbsTwoMassSetOps_Private(MbsModel, const MbsParameterInfo[]);

/* Bounded input force of the input-design models (design_input.c) */
typedef enum {
  MBS_DESIGN_INPUT_ZERO,
  MBS_DESIGN_INPUT_CONSTANT,
  MBS_DESIGN_INPUT_SINE
} MbsDesignInputType;

typedef struct {
  MbsDesignInputType type;
  PetscReal          force_max; /* F_max [N] */
} MbsDesignInput;

PETSC_INTERN PetscErrorCode MbsDesignInputCreate(MbsModel, MbsDesignInputType, PetscReal);
PETSC_INTERN PetscErrorCode MbsDesignInputForce(MbsModel, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode MbsDesignInputSetFromOptions(MbsModel, PetscOptionItems *);
PETSC_INTERN PetscErrorCode MbsDesignInputDestroy(MbsModel);

/* Engine speed of an experiment: constant, or a linear run-up (engine_speed.c) */
typedef struct {
  PetscReal stationary_rpm; /* > 0: constant speed */
  PetscReal ramp_rpm[2], ramp_time[2];
} MbsSpeedProfile;

PETSC_INTERN PetscErrorCode MbsSpeedProfileSetFromOptions(PetscOptionItems *, MbsSpeedProfile *);
PETSC_INTERN void           MbsSpeedProfileAngle(const MbsSpeedProfile *, PetscReal, PetscReal *, PetscReal *);
PETSC_INTERN PetscReal      MbsSpeedProfileAcceleration(const MbsSpeedProfile *, PetscReal);

/* The closed-form laws of engine4: cylinder pressure and DMF torque (engine_laws.c) */
typedef struct {
  PetscReal r_cs, l_cr, s_cr, A_P, V_d, V_c;                                          /* crank drive [m, m, m, m^2, m^3, m^3] */
  PetscReal m_cr, J_cr, m_p;                                                          /* conrod and piston [kg, kg m^2, kg] */
  PetscReal p_in, p_cc, kappa, PR0, PR2, soc0, soc1, dpsi0, dpsi1, a_W, m_W, psi_EVO; /* pressure law [Pa, rad] */
  PetscReal k1, k2, phi1, eps_DMF, d_DMF;                                             /* DMF [N m/rad, rad, N m s/rad] */
} MbsEngineLaws;

PETSC_INTERN void MbsEngineLawsDefault(MbsEngineLaws *);
PETSC_INTERN void MbsCylinderPressure(const MbsEngineLaws *, PetscReal, PetscReal, PetscReal *, PetscReal *);
PETSC_INTERN void MbsDmfTorque(const MbsEngineLaws *, PetscReal, PetscReal *, PetscReal *);

/* Exact slider-crank kinematics at crank angle theta: conrod angle beta, conrod centre (x, y), piston z, and d/dtheta */
typedef struct {
  PetscReal beta, x, y, z;
  PetscReal dbeta, dx, dy, dz;
} MbsSliderCrank;

PETSC_INTERN void      MbsSliderCrankPosition(const MbsEngineLaws *, PetscReal, MbsSliderCrank *);
PETSC_INTERN PetscReal MbsReducedInertia(const MbsEngineLaws *, PetscReal);
PETSC_INTERN PetscReal MbsReducedInertiaMean(const MbsEngineLaws *);
PETSC_INTERN PetscReal MbsGasTorqueMean(const MbsEngineLaws *, PetscReal);

/* Spectrum and order options shared by the commands (fourier.c) */
typedef struct {
  char      window[32], order_window[32];
  PetscReal interval[2]; /* t_l, t_u of the spectrum [s] */
  PetscReal band[2];     /* [Hz] */
  PetscBool band_set;
  PetscReal gain;
  PetscInt  norder;
  PetscReal order[64];
  PetscInt  nspeed_range;   /* 0 (not given), 2 or 3 values of speed_range */
  PetscReal speed_range[3]; /* lo, hi[, step] [rpm] */
  PetscReal ramp_rpm[2], ramp_time[2];
  PetscReal stationary_rpm; /* > 0: orders of a stationary experiment, on its last -window_cycles revolutions */
  PetscReal window_cycles;
} MbsFourierOptions;

PETSC_INTERN PetscErrorCode MbsFourierOptionsRead(PetscReal, PetscReal, MbsFourierOptions *);
PETSC_INTERN PetscErrorCode MbsQuadratureWeights(PetscInt, const PetscReal[], PetscReal, PetscReal[]);
PETSC_INTERN PetscInt       MbsLowerBound(const PetscReal[], PetscInt, PetscReal);

/* Forward simulation with a hook that configures the TS (e.g. for an adjoint) and optionally keeps it */
typedef PetscErrorCode (*MbsTSSetUpFn)(TS, void *);
PETSC_INTERN PetscErrorCode MbsSimulate_Private(MbsModel, const char[], MbsTSSetUpFn, void *, MbsStateMonitor, void *, MbsSignal *, TS *);
PETSC_INTERN PetscErrorCode MbsProgressDue(PetscLogDouble *, PetscBool *);

PETSC_INTERN PetscErrorCode MbsFunctionListNames(PetscFunctionList, char[], size_t);

/* Column-major dense access */
#define MBS_IJ(A, i, j, rows) (A)[(i) + (j) * (rows)]

/* HDF5 helpers: every HDF5 failure becomes a PETSc error that names the file and the object. */
#define MbsCallHDF5(call, file, object) \
  do { \
    if ((call) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "HDF5 error in %s on '%s' of file '%s'", #call, object, file); \
  } while (0)

typedef struct {
  hid_t file;
  char  path[PETSC_MAX_PATH_LEN];     /* the name the user asked for */
  char  tmp_path[PETSC_MAX_PATH_LEN]; /* written here, renamed to path on close */
  char  base[128];                    /* group that object paths are relative to ("" for the root) */
} MbsH5Writer;

PETSC_INTERN PetscErrorCode MbsH5WriterOpen(const char[], MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterClose(MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterSuspend(MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterResume(MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriteReals(MbsH5Writer *, const char[], PetscInt, const PetscInt[], const PetscReal[], const char[]);
PETSC_INTERN PetscErrorCode MbsH5WriteStrings(MbsH5Writer *, const char[], PetscInt, const char *const[]);
PETSC_INTERN PetscErrorCode MbsH5WriteAttribute(MbsH5Writer *, const char[], const char[], const char[]);
PETSC_INTERN PetscErrorCode MbsH5WriteProvenance(MbsH5Writer *, MPI_Comm);
PETSC_INTERN PetscErrorCode MbsH5ReadReals(hid_t, const char[], const char[], PetscInt, PetscInt[], PetscReal **, const char[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsMeasurementWriteGroups_Private(MbsH5Writer *, const MbsMeasurement *);
PETSC_INTERN PetscErrorCode MbsH5ReadAttribute(hid_t, const char[], const char[], const char[], char[], size_t, PetscBool *);

/*
  What a cost implements. The discrete cost J depends on the output samples y_n only, and its derivative is
  dJ/dy_n = c_n r'(t_n, y_n), c_n the sample's quadrature weight and r' the cost's adjoint density: the
  adjoint solve integrates r' with the integrator's own rule, so the gradient is exact for the discrete J.
*/
#define MBS_COST_SLOTS 2 /* recorded comparisons: 0 initial, 1 identified */
typedef struct {
  /* reads the cost's options */
  PetscErrorCode (*set_from_options)(MbsCost);
  /* takes what the cost needs of the measurement (file name for messages); the measurement must outlive the cost */
  PetscErrorCode (*set_up)(MbsCost, const char[], const MbsMeasurement *);
  /* J of a simulated signal; keeps what the adjoint density needs */
  PetscErrorCode (*evaluate)(MbsCost, const MbsSignal *, PetscReal *);
  /* r'(t, y) after evaluate */
  PetscErrorCode (*density)(MbsCost, PetscReal, PetscReal, PetscReal *);
  /* keeps the model's curve (spectrum, orders or signal) of a signal in a slot, for the result file */
  PetscErrorCode (*record)(MbsCost, const MbsSignal *, PetscInt);
  /* writes the measured curve and the recorded ones */
  PetscErrorCode (*write)(MbsCost, MbsH5Writer *);
  PetscErrorCode (*destroy)(MbsCost);
} MbsCostOps;

struct _p_MbsCost {
  char       type[32];
  MbsModel   model;
  MbsCostOps ops;
  void      *data;
};

PETSC_INTERN PetscErrorCode MbsCostCreate_Spectrum(MbsCost);
PETSC_INTERN PetscErrorCode MbsCostCreate_Time(MbsCost);
PETSC_INTERN PetscErrorCode MbsCostWrite(MbsCost, MbsH5Writer *);

/* One experiment of an identification: its own options, model, cost and measurement (experiment.c) */
typedef struct {
  char           name[64];
  PetscOptions   options; /* the global options with this experiment's overrides */
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
PETSC_INTERN PetscErrorCode MbsExperimentsMarkUsed(PetscInt, MbsExperiment[]);

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
  /* a J scan on a grid of the two identified parameters (scan.c), when -scan_grid is given */
  PetscInt   scan_n[2];
  PetscReal  scan_lo[2], scan_hi[2];
  PetscBool  scan_gradient;
  PetscReal *scan_J, *scan_grad; /* scan_n[1] x scan_n[0] (x fastest), gradient x 2 */
};

typedef PetscErrorCode (*MbsObjectiveWriteFn)(MbsObjective, MbsH5Writer *, void *);

PETSC_INTERN PetscErrorCode MbsObjectiveCreate(MPI_Comm, MbsObjective *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveDestroy(MbsObjective *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetValues(MbsObjective, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsObjectiveSetValues(MbsObjective, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluate(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluateLocal(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveRecord(MbsObjective, PetscInt);
PETSC_INTERN PetscErrorCode MbsObjectiveWriteFile(MbsObjective, const char[], const PetscReal[], const PetscReal[], MbsObjectiveWriteFn, void *);
PETSC_INTERN PetscErrorCode MbsScanOptions(MbsObjective, PetscBool *);
PETSC_INTERN PetscErrorCode MbsScanRun(MbsObjective);
PETSC_INTERN PetscErrorCode MbsScanWrite(MbsObjective, MbsH5Writer *);

/* Command table */
typedef PetscErrorCode (*MbsCommandFn)(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandSimulate(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandGradcheck(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandIdentify(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandScan(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsCommandEigen(MPI_Comm);
PETSC_INTERN PetscErrorCode MbsEigenWrite(MbsH5Writer *, const char[], const MbsEigenResult *);
