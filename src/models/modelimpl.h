/* What a model file implements, and the helpers the model files share (engine laws and speed, design inputs). */
#pragma once

#include "mbsidimpl.h"
#include <petscblaslapack.h>

/*
  What a model file implements. Arrays are dense and column-major (entry (i, j) at [i + j*rows]),
  and the caller zeroes every output array before the call, so a model writes its non-zeros only.
*/
typedef struct {
  /* F(t, U, U', p), length n */
  PetscErrorCode (*residual)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  /* dF/dU + shift dF/dU', n x n */
  PetscErrorCode (*jacobian)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, PetscReal[]);
  /* the sparse Jacobian, NULL: none (the sparse path gathers the dense one): an AIJ n x n preallocated with every entry
     jacobian_mat may write (from its places at a valid state U), and dF/dU + shift dF/dU' added into it (zeroed by the caller) */
  PetscErrorCode (*jacobian_create)(MbsModel, const PetscReal[], Mat *);
  PetscErrorCode (*jacobian_mat)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, Mat);
  /* the same for the columns of dF/dp of the identified parameters id (nid of them): an AIJ n x nid, and those columns
     added into it; NULL: the dense dF/dp */
  PetscErrorCode (*jacobian_p_create)(MbsModel, PetscInt, const PetscInt[], Mat *);
  PetscErrorCode (*jacobian_p_mat)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], Mat);
  /* dF/dU' (t, U), n x n, where it does not depend on U' (ODE models); NULL: J(shift 1) - J(shift 0) */
  PetscErrorCode (*mass)(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
  /* dF/dp, n x np; columns of parameters that are not identifiable may stay zero */
  PetscErrorCode (*jacobian_p)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  /* the second derivatives of the sensitivity equations (sensitivity.c): for the direction (S, S') and identifiable
     parameter j, d/dU + shift d/dU' of G = dF/dU S + dF/dU' S' + dF/dp_j, n x n; NULL: no optimal input design */
  PetscErrorCode (*jacobian_sensitivity)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, PetscReal, PetscReal[]);
  /* y(U) and dy/dU (length n, may be NULL) */
  PetscErrorCode (*output)(MbsModel, PetscReal, const PetscReal[], PetscReal *, PetscReal[]);
  /* dy/dp (length np) of an output that depends on the parameters directly (an accelerometer: y(t, U, p)); NULL: none */
  PetscErrorCode (*output_p)(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
  /* y_c(U) and dy_c/dU of output channel c < nchannel (every sensor of a described model); NULL: one channel, output */
  PetscErrorCode (*channel_output)(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal *, PetscReal[]);
  /* dy_c/dp of output channel c (an accelerometer's); NULL: output_p for a one-channel model */
  PetscErrorCode (*channel_output_p)(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal[]);
  /* MbsModelChannelsWeighted(): the channels' values, weights and weighted derivatives, what they share evaluated once;
     NULL: channel by channel */
  PetscErrorCode (*channels)(MbsModel, PetscInt, const PetscInt[], PetscReal, const PetscReal[], MbsChannelWeightFn, void *, PetscReal[], PetscReal[], PetscReal[], PetscReal[]);
  /* consistent U(t0), U'(t0) of a DAE; NULL for the ODE models U = (q, v), which start from -initial_q, -initial_v */
  PetscErrorCode (*initial_state)(MbsModel, PetscReal, PetscReal[], PetscReal[]);
  /* dU(t0)/dp (n x np) of a DAE whose consistent initial state depends on the parameters (its algebraic components:
     the adjoint adds lambda(t0)^T dU(t0)/dp); NULL: U(t0) does not depend on p */
  PetscErrorCode (*initial_state_p)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  /* the tangent of the consistent start of a DAE for ncol quantities theta that enter its force rows and the hidden
     constraints its start solves (not its pose, velocities or motions: an input force, or dF/dp_j as it changes with
     them), at U(t0), U'(t0): r (n x ncol) holds, in the row of each differential component, dF/dtheta, and in the row
     of each algebraic component whose time derivative the start solves (a GGL model's Phi_q v, differentiated:
     Phi_q v' + ...), the derivative by theta of that time derivative at fixed U' (zero in the other rows); into
     dU = dU(t0)/dtheta and dUdot = dU'(t0)/dtheta (n x ncol each, all set; the multipliers and accelerations move);
     NULL: a DAE whose start no force moves, or an ODE */
  PetscErrorCode (*initial_state_tangent)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscInt, const PetscReal[], PetscReal[], PetscReal[]);
  /* B (n, set) with dF/dF_in = -B, F_in the force of the nodal input (input.c), at (t, U); NULL: the unit row of the
     force coordinate (nq + force_coordinate) */
  PetscErrorCode (*input_direction)(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
  /* M, C, K (nq x nq) of the linearisation about the model's operating point */
  PetscErrorCode (*linearize)(MbsModel, PetscReal[], PetscReal[], PetscReal[]);
  /* a model with internal first-order states (no mass; linearize holds them): the first-order linearisation
     B x' = A x about the same point, x = (y, y', s), N = 2 nq + ns, into *N and A, B (N x N, caller frees with
     PetscFree2); *N = 0 and nothing allocated when the model has no internal states; NULL: none */
  PetscErrorCode (*linearize_first_order)(MbsModel, PetscInt *, PetscReal **, PetscReal **);
  /* the linearisation's input and outputs (MbsModelLinearizeIO): B (nq), the generalised force of the load element named
     load (NULL: the first excitation; its name into used) per unit of its size, and per output channel c the rows of
     y_c = Cq x + Cv x' + Ca x'' about the operating point (nchannel x nq each, row c at c nq); NULL: no frequency response */
  PetscErrorCode (*linearize_io)(MbsModel, const char[], const char **, PetscReal[], PetscReal[], PetscReal[], PetscReal[]);
  /* i >= 0: the linearisations (linearize, linearize_first_order, linearize_io) until the call with i < 0 continue
     those at the current parameters smoothly along p_i, as polynomials of degree 4 or less in p_i whose derivative at
     the current p_i is that of the linearisation (MbsModelLinearizeDerivative()); NULL: they are such already */
  PetscErrorCode (*linearize_along)(MbsModel, PetscInt);
  /* T (nz x nq, column-major, caller frees): the linearisation's coordinates mapped to body coordinates z, and what
     z holds (a string, caller frees); NULL: the model's own coordinates are reported */
  PetscErrorCode (*mode_coordinates)(MbsModel, PetscInt *, PetscReal **, char **);
  /* nfamily matrices M_F (nfamily x nq x nq, column-major, caller frees) that sum to the linearisation's M, the kinetic
     energy of the families of motion whose comma-separated names (caller frees) say; NULL or nfamily 0: none */
  PetscErrorCode (*energy_families)(MbsModel, PetscInt *, PetscReal **, char **);
  /* external force F(t) [N], for reports and balance checks */
  PetscErrorCode (*excitation)(MbsModel, PetscReal, PetscReal *);
  /* options of the model itself (excitation, initial state), in the caller's options block */
  PetscErrorCode (*set_from_options)(MbsModel, PetscOptionItems *);
  PetscErrorCode (*destroy)(MbsModel);
} MbsModelOps;

/* An input force that replaces the model's own excitation (input.c) */
typedef enum {
  MBS_INPUT_MODEL, /* the model's own excitation */
  MBS_INPUT_NODAL,
  MBS_INPUT_SINE
} MbsInputType;

typedef struct {
  MbsInputType type;
  PetscInt     n;         /* nodes */
  PetscReal   *t, *F;     /* [s], [N] */
  PetscReal    amplitude; /* of the sine [N] */
  PetscReal    t0, tf;    /* the sine's period tf - t0 starts at t0 [s] */
} MbsInput;

/* The optimal input design problem of a model's spec (sections 4-8 of oscillator2.md and cart_pendulum.md): defaults of mbsid design */
typedef struct {
  const char *parameters; /* the parameters b of the Fisher information, comma separated ("" or NULL: no design problem) */
  PetscInt    nodes;      /* input nodes over [t0, tf] */
  PetscReal   force_max;  /* input bound [N] */
  PetscInt    nend;       /* states held at zero at tf by the terminal penalty */
  PetscInt    end[4];     /* their indices in U */
  PetscReal   end_weight; /* rho of the penalty rho/2 sum U_i(tf)^2 */
  PetscReal   cost_scale; /* the optimiser sees J/cost_scale */
  PetscInt    max_it;     /* iteration cap of the optimiser */
  PetscReal   sample_dt;  /* spacing of the samples of E_RMS [s] */
  PetscReal   noise[3];   /* noise levels sigma of E_RMS, in the output unit */
  PetscInt    nnoise;
  PetscReal   grid[6]; /* E_RMS grid: lo, hi, count per parameter */
} MbsDesignSpec;

/* Engine speed of an experiment: constant, a linear run-up, or a measured table (engine_speed.c) */
typedef struct {
  PetscReal  stationary_rpm; /* > 0: constant speed */
  PetscReal  ramp_rpm[2], ramp_time[2];
  char       table_path[PETSC_MAX_PATH_LEN];  /* the table's source, for messages */
  PetscInt   ntable;                          /* > 0: the measured table replaces the ramp */
  PetscReal *table_t, *table_rpm, *table_phi; /* rows: time [s], speed [rpm], crank angle [rad] */
} MbsSpeedProfile;

/* a step point within this fraction of the time span of a sample time is that sample */
#define MBS_SAMPLE_RTOL 1e-9

/*
  The read-only view of a model: the fields that describe it and are set once by MbsModelSetType() and the options,
  which the layers above may read (never write, nor take the address of); every other field is state, reached through
  the functions below (sample times, frozen steps, Jacobian settings and work, step caps, parameters, inputs, ops).
  tests/check_layers.py reads the list from the next line and fails on any other field read from above:
  view _p_MbsModel: comm type n np param_info output_name output_unit t0 tf dt
*/
struct _p_MbsModel {
  MPI_Comm                comm;
  char                    type[64];
  PetscInt                n;  /* state size */
  PetscInt                nq; /* coordinates of the linearisation */
  PetscInt                np;
  const MbsParameterInfo *param_info; /* np entries, static in the model file */
  PetscReal              *p;          /* current parameter values */
  const char             *output_name, *output_unit;
  PetscInt                nchannel;                     /* output channels of ops.channel_output; 0: one, the output */
  const char            **channel_name, **channel_unit; /* nchannel each, owned by the model file's data */
  PetscReal               t0, tf, dt;                   /* default time span and step [s] */
  PetscReal               dt_max;                       /* step cap for adaptive integration [s], 0: none */
  PetscReal               analysis_dt_max;              /* step cap of the analysed frequencies, below the Nyquist step of the highest (set by the cost) [s], 0: none */
  PetscBool              *differential;                 /* n flags, PETSC_FALSE for algebraic components of a DAE */
  PetscBool               constant_mass;                /* dF/dU' does not depend on U: integrated as it is (integration_form.c) */
  const char             *ode_form_option;              /* a DAE's option for its ODE form, which explicit methods take (NULL: none) */
  PetscReal              *q0, *v0;                      /* nq initial coordinates and rates of an ODE model */
  PetscInt                force_coordinate;             /* the coordinate the excitation force acts on, where a controller closes the loop (-1: none) */
  PetscBool               nodal_input;                  /* takes a nodal input without a force coordinate (a model file's force element with input: true) */
  PetscBool               sparse_jacobian;              /* the integrator assembles AIJ and factors it with KLU (simulate.c) */
  PetscBool               petsc_klu;                    /* that KLU is PETSc's interface, not core/klu_refactor.c's */
  PetscInt                adjoint_klu_reuse;            /* corrections of a transposed solve on kept factors (MbsPCSetKLUReuse) */
  PetscReal              *jacobian_work;                /* n x n dense Jacobian the model writes into, for the sparse path */
  PetscInt                jacobian_lag;                 /* a forward solve's Newton refactors every jacobian_lag-th iteration, across steps (simulate.c) */
  PetscInt                newton_predictor;             /* degree of the polynomial through past states that starts each Newton solve, 0: the last state (simulate.c) */
  PetscBool               newton_multipliers;           /* that lagged Newton predicts the algebraic components with an alternating term and tests their errors times h (simulate.c) */
  PetscReal              *form_work;                    /* the explicit form's factored E, rate and scratch, and the (t, F(t), U, p) they belong to (integration_form.c) */
  PetscInt               *form_pivots;                  /* its pivots and the row ranges of its factors, 3n (MbsDenseLUFactor) */
  PetscReal              *channel_work;                 /* n + np: one channel's dy/dU and dy/dp, for a model without ops.channels */
  /* a controller in the loop on each force input (MbsModelGetNumControlInputs()): the force coordinate, or a model
     file's forces with input: true (ncontrol, their names); each one's force u [N], held between its samples (that
     force becomes F(t) - u), and the output channel it reads (-controller_sensor; -1: the output) */
  PetscInt    ncontrol;
  const char *control_input[MBS_MAX_CONTROL];
  PetscReal   control_force[MBS_MAX_CONTROL];
  PetscInt    control_channel[MBS_MAX_CONTROL];
  /* steps frozen for a gradient check: the next simulation records its step points, later ones replay them (simulate.c) */
  PetscBool  freeze_steps;
  PetscInt   nfrozen;
  PetscReal *frozen_t;
  /* measured sample times inside (t0, tf) that every step sequence lands on (a cost compares there; simulate.c), and the
     fixed step between them (0: adaptive steps), set by each solve */
  PetscInt               nsample;
  PetscReal             *sample_t, sample_dt;
  MbsInput               input;  /* replaces ops.excitation unless MBS_INPUT_MODEL */
  MbsDesignSpec          design; /* set by the models that have an input design problem */
  const MbsSpeedProfile *speed;  /* the engine speed of a model that has one, read by its options (the order analysis takes it); NULL: none */
  MbsModelOps            ops;
  void                  *data;
  char                   model_file[PETSC_MAX_PATH_LEN]; /* -model_file of model described */
  unsigned long long     model_file_checksum;            /* of the bytes read from model_file (MbsChecksumFile) */
  char                   planar[8];                      /* a model from a file: the ground axis normal to its plane, "x", "y", "z", or "none" (3D) */
  char                   start_refusal[1024];            /* why the last solve's start was refused at its parameters (MbsModelInitialStateTry), "" if it was not */
};

PETSC_INTERN PetscErrorCode MbsModelSetSampleTimes(MbsModel, PetscInt, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelSetSampleStep(MbsModel, PetscReal);
PETSC_INTERN PetscErrorCode MbsModelSetAnalysisStep(MbsModel, PetscReal);
PETSC_INTERN PetscErrorCode MbsSolveRefuseSet(MbsModel, PetscInt, const PetscReal[2]);
PETSC_INTERN PetscErrorCode MbsSolveRefuseForget(MbsModel);
PETSC_INTERN PetscBool      MbsSolveRefused(MbsModel, char[], size_t);
PETSC_INTERN PetscErrorCode MbsModelInitialStateTry(MbsModel, PetscReal, PetscReal[], PetscReal[], PetscBool *);
PETSC_INTERN const char    *MbsModelStartRefusal(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelFreezeSteps(MbsModel, PetscBool);
PETSC_INTERN PetscErrorCode MbsModelGetSampleTimes(MbsModel, PetscInt *, const PetscReal **, PetscReal *);
PETSC_INTERN PetscErrorCode MbsModelGetFrozenSteps(MbsModel, PetscInt *, const PetscReal **);
PETSC_INTERN PetscErrorCode MbsModelGetStepCaps(MbsModel, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode MbsModelGetJacobianSettings(MbsModel, PetscBool *, PetscInt *, PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsModelGetJacobianWork(MbsModel, PetscReal **);
PETSC_INTERN PetscErrorCode MbsModelGetPetscKLU(MbsModel, PetscBool *);
PETSC_INTERN PetscErrorCode MbsModelGetAdjointKLUReuse(MbsModel, PetscInt *);
PETSC_INTERN PetscErrorCode MbsModelGetDifferentialInfo(MbsModel, const PetscBool **, PetscBool *, const char **);
PETSC_INTERN PetscErrorCode MbsModelGetParametersRead(MbsModel, const PetscReal **);
PETSC_INTERN PetscErrorCode MbsModelHasOutputP(MbsModel, PetscBool *);
PETSC_INTERN PetscErrorCode MbsModelGetNodalInput(MbsModel, PetscInt *, const PetscReal **, const PetscReal **);
PETSC_INTERN PetscErrorCode MbsModelGetDesignSpec(MbsModel, const MbsDesignSpec **);
PETSC_INTERN PetscErrorCode MbsModelGetSpeedProfile(MbsModel, const MbsSpeedProfile **);
PETSC_INTERN PetscErrorCode MbsModelRecordFrozenSteps(MbsModel, PetscInt, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelGetFormWork(MbsModel, PetscInt, PetscInt, PetscReal **, PetscInt **, PetscBool *);
PETSC_INTERN PetscErrorCode MbsModelSetUp_Private(MbsModel, PetscInt, PetscInt, PetscInt, const MbsParameterInfo[]);
PETSC_INTERN void           MbsModelInheritOutputAndSpan_Private(MbsModel, MbsModel);
PETSC_INTERN PetscReal      MbsModelStepCap(MbsModel);
PETSC_INTERN PetscInt       MbsDenseLUFactor(PetscInt, PetscReal[], PetscInt[]);
PETSC_INTERN void           MbsDenseLUSolve(PetscInt, const PetscReal[], const PetscInt[], PetscInt, PetscReal[]);
PETSC_INTERN void           MbsDenseLUSolveTranspose(PetscInt, const PetscReal[], const PetscInt[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelCheckLoops_Private(MbsModel, PetscInt, const PetscInt[]);
PETSC_INTERN PetscErrorCode MbsDenseSolve_Private(MbsModel, PetscInt, PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelExplicitRate(MbsModel, PetscReal, const PetscReal[], PetscReal[], PetscReal[], PetscInt[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelInitialRates(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelInitialStateP(MbsModel, PetscReal, PetscInt, const PetscInt[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelInitialStateGradient(MbsModel, PetscReal, PetscInt, const PetscInt[], const PetscReal[], PetscReal[]);

PETSC_INTERN PetscErrorCode MbsModelCreate_Oscillator2(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_CartPendulum(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_CartPendulumChain(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_Bushing2(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_SpringChain(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_Engine4(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_PidSdof(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_Described(MbsModel);
PETSC_INTERN PetscErrorCode MbsModelCreate_Linearized(MbsModel);
PETSC_INTERN PetscErrorCode MbsTwoMassSetOps_Private(MbsModel, const MbsParameterInfo[]);

PETSC_INTERN PetscErrorCode MbsModelInputHat(MbsModel, PetscReal, PetscInt *, PetscReal[]);
PETSC_INTERN void           MbsNodalHat(PetscInt, const PetscReal[], PetscReal, PetscInt *, PetscReal[2]);
PETSC_INTERN PetscErrorCode MbsModelInputForce(MbsModel, PetscReal, PetscReal *);
PETSC_INTERN PetscReal      MbsInputSine(const MbsInput *, PetscReal, PetscInt);
PETSC_INTERN PetscErrorCode MbsModelInputDirection(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsModelInputSetFromOptions(MbsModel, PetscOptionItems *);
PETSC_INTERN PetscErrorCode MbsInputWrite(MbsH5Writer *, const char[], PetscInt, const PetscReal[], const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsInputWriteText(const char[], PetscInt, const PetscReal[], const PetscReal[]);

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

PETSC_INTERN PetscErrorCode MbsSpeedProfileSetFromOptions(PetscOptionItems *, MbsSpeedProfile *);
PETSC_INTERN PetscErrorCode MbsSpeedProfileSetTable(MbsSpeedProfile *, PetscInt, const PetscReal[], const PetscReal[], const PetscReal[], const char[]);
PETSC_INTERN PetscErrorCode MbsSpeedProfileCopy(const MbsSpeedProfile *, MbsSpeedProfile *);
PETSC_INTERN PetscErrorCode MbsSpeedProfileReset(MbsSpeedProfile *);
PETSC_INTERN PetscErrorCode MbsSpeedProfileTime(const MbsSpeedProfile *, PetscReal, PetscReal *);
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
PETSC_INTERN void      MbsReducedInertiaDerivatives(const MbsEngineLaws *, PetscReal, PetscReal[3], PetscReal[2]);
PETSC_INTERN PetscReal MbsGasTorqueMean(const MbsEngineLaws *, PetscReal);
