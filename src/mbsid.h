/*
  mbsid: identification of multibody-system parameters from vibration spectra.

  Public interface of libmbsid. A model is an implicit DAE

      F(t, U, U', p) = 0,      y = g(U),

  simulated with PETSc TS; its output y(t) is analysed by Fourier coefficients

      A_k = 2/L int eta(t) y(t) cos(w_k (t - t_p)) dt,   B_k likewise with sin,

  on a window [t_l, t_u] of length L with window function eta (rectangular or Hann); the phase origin t_p is t_l
  for the harmonics of a spectrum and 0 (absolute time) for engine orders.
*/
#pragma once

#include <petscts.h>

/* Models */
typedef struct _p_MbsModel *MbsModel;

typedef struct {
  const char *name;         /* option -p_<name> */
  const char *unit;         /* SI unit, for -help and the result files */
  const char *description;  /* one line for -help */
  PetscReal   value;        /* default value */
  PetscReal   lower, upper; /* physical bounds, inclusive */
  PetscBool   identifiable; /* the model provides dF/dp for it */
} MbsParameterInfo;

PETSC_EXTERN PetscErrorCode MbsModelRegisterAll(void);
PETSC_EXTERN PetscErrorCode MbsModelRegister(const char[], PetscErrorCode (*)(MbsModel));
PETSC_EXTERN PetscErrorCode MbsModelCreate(MPI_Comm, MbsModel *);
PETSC_EXTERN PetscErrorCode MbsModelSetType(MbsModel, const char[]);
PETSC_EXTERN PetscErrorCode MbsModelSetFromOptions(MbsModel);
PETSC_EXTERN PetscErrorCode MbsModelDestroy(MbsModel *);
PETSC_EXTERN PetscErrorCode MbsModelView(MbsModel, PetscViewer);
PETSC_EXTERN PetscErrorCode MbsModelGetType(MbsModel, const char **);
PETSC_EXTERN PetscErrorCode MbsModelGetSizes(MbsModel, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode MbsModelDescribedFullState(MbsModel, const PetscReal[], PetscInt *, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelGetParameterInfo(MbsModel, const MbsParameterInfo **);
PETSC_EXTERN PetscErrorCode MbsModelGetParameterIndex(MbsModel, const char[], PetscInt *);
PETSC_EXTERN PetscErrorCode MbsModelGetParameters(MbsModel, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelSetParameters(MbsModel, const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelSetParameter(MbsModel, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode MbsModelGetOutputInfo(MbsModel, const char **, const char **);
PETSC_EXTERN PetscErrorCode MbsModelGetTimeSpan(MbsModel, PetscReal *, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsModelInitialState(MbsModel, PetscReal, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelResidual(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelJacobian(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelJacobianMat(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, Mat);
PETSC_EXTERN PetscErrorCode MbsModelJacobianCreate(MbsModel, const PetscReal[], Mat *);
PETSC_EXTERN PetscBool      MbsModelHasSparseJacobian(MbsModel);
PETSC_EXTERN PetscErrorCode MbsModelJacobianPCreate(MbsModel, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MbsModelJacobianPMat(MbsModel, PetscReal, const PetscReal[], const PetscReal[], Mat);
PETSC_EXTERN PetscErrorCode MbsModelJacobianP(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelMass(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelFormResidual(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelFormJacobian(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelFormJacobianP(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelRate(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelRateJacobian(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelRateJacobianP(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelRateAdjoint(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscInt, const PetscInt[], PetscReal[], PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelOutput(MbsModel, PetscReal, const PetscReal[], PetscReal *, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelGetNumChannels(MbsModel, PetscInt *);
PETSC_EXTERN PetscErrorCode MbsModelGetChannelInfo(MbsModel, PetscInt, const char **, const char **);
PETSC_EXTERN PetscErrorCode MbsModelFindChannel(MbsModel, const char[], const char[], PetscInt *);
PETSC_EXTERN PetscErrorCode MbsModelChannelOutput(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal *, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelChannelOutputP(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal[]);
/* the weights w[0..nc) of output channels from their values y (MbsModelChannelsWeighted) */
typedef PetscErrorCode (*MbsChannelWeightFn)(void *, PetscInt, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelChannelValues(MbsModel, PetscInt, const PetscInt[], PetscReal, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelChannelsWeighted(MbsModel, PetscInt, const PetscInt[], PetscReal, const PetscReal[], MbsChannelWeightFn, void *, PetscReal[], PetscReal[], PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelOutputP(MbsModel, PetscReal, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelLinearize(MbsModel, PetscInt *, PetscReal **, PetscReal **, PetscReal **);
PETSC_EXTERN PetscErrorCode MbsModelLinearizeFirstOrder(MbsModel, PetscInt *, PetscReal **, PetscReal **);
PETSC_EXTERN PetscErrorCode MbsModelLinearizeIO(MbsModel, const char[], const char **, PetscReal **, PetscReal **, PetscReal **, PetscReal **);
PETSC_EXTERN PetscErrorCode MbsModelLinearizeDerivative(MbsModel, const char[], PetscInt, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelLinearizeFrequency(MbsModel, PetscInt *, PetscReal **, PetscReal **, PetscReal **);
PETSC_EXTERN PetscErrorCode MbsModelLinearizeFrequencyIO(MbsModel, const char[], const char **, PetscInt *, PetscReal **, PetscReal **, PetscReal **, PetscReal **);
PETSC_EXTERN PetscErrorCode MbsFrequencyResponse(MbsModel, const char[], PetscInt, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsFrequencyResponseGradient(MbsModel, const char[], PetscInt, const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, const PetscInt[], PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelModeCoordinates(MbsModel, PetscInt *, PetscReal **, char **);
PETSC_EXTERN PetscErrorCode MbsModelEnergyFamilies(MbsModel, PetscInt *, PetscReal **, char **);
PETSC_EXTERN PetscErrorCode MbsModelExcitation(MbsModel, PetscReal, PetscReal *);
#define MBS_MAX_CONTROL 8 /* force inputs of a model that controllers in the loop drive */
PETSC_EXTERN PetscErrorCode MbsModelGetNumControlInputs(MbsModel, PetscInt *);
PETSC_EXTERN PetscErrorCode MbsModelGetControlInput(MbsModel, PetscInt, const char **);
PETSC_EXTERN PetscErrorCode MbsModelControlOptionsPrefix(MbsModel, PetscInt, size_t, char[]);
PETSC_EXTERN PetscErrorCode MbsModelSetControlForce(MbsModel, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode MbsModelSetControlSensor(MbsModel, PetscInt, const char[], const char[]);
PETSC_EXTERN PetscErrorCode MbsModelGetControlSensor(MbsModel, PetscInt, const char **, const char **);
PETSC_EXTERN PetscErrorCode MbsModelControlSensor(MbsModel, PetscInt, PetscReal, const PetscReal[], PetscReal *);
PETSC_EXTERN PetscErrorCode MbsModelControlGainUnits(MbsModel, PetscInt, size_t, char[], char[], char[]);
PETSC_EXTERN PetscErrorCode MbsModelSetNodalInput(MbsModel, PetscInt, const PetscReal[], const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsModelSetSineInput(MbsModel, PetscReal);
PETSC_EXTERN PetscErrorCode MbsModelClearInput(MbsModel);
PETSC_EXTERN PetscErrorCode MbsInputRead(const char[], PetscReal, PetscReal, PetscInt *, PetscReal **, PetscReal **);
PETSC_EXTERN PetscErrorCode MbsModelCreateSensitivity(MbsModel, PetscInt, const PetscInt[], MbsModel *);
PETSC_EXTERN PetscErrorCode MbsModelLinearizeClosedLoop(MbsModel, PetscInt, const PetscInt[], const PetscReal[], PetscBool, PetscInt *, PetscReal **, PetscReal **, PetscReal **);

/*
  Forward simulation of one experiment. The output is kept twice: at the accepted step points (for files and
  plots), and at the nodes of the integrator's own quadrature rule, with which every cost integrates it:

    int f(t) dt ~ sum_j w_j f(t_j).

  End-point theta methods (cn, -ts_theta_endpoint): the step points, w = (1 - theta) h_n + theta h_{n-1}; one-stage
  theta methods (theta): the stages t_n + theta h_n, w = h_n, and for theta = 1 (beuler) the step points, w = h_{n-1};
  Runge-Kutta: the stages t_n + c_i h_n of the accepted steps with b_i != 0, w = b_i h_n (nodes in time order, a time
  may repeat). This is the rule by which
  PETSc's discrete adjoint integrates a cost, so a cost summed over the nodes is the exact discrete function that
  the adjoint differentiates, whatever the method and step sizes.
*/
typedef struct {
  PetscInt          n;         /* step points (time steps + 1) */
  PetscReal        *t;         /* [s], strictly increasing */
  PetscReal        *y;         /* output, in the model's output unit */
  PetscInt          nq;        /* quadrature nodes */
  PetscReal        *tq, *yq;   /* [s] non-decreasing, output */
  PetscReal        *wq;        /* quadrature weights [s] */
  PetscInt          steps;     /* accepted time steps */
  PetscInt          rejects;   /* rejected time steps */
  TSConvergedReason reason;    /* < 0: the integration failed */
  PetscReal         t_end;     /* time reached [s] */
  PetscBool         nonfinite; /* the output became Inf or NaN */
  PetscInt          nchannel;  /* output channels of the model (MbsModelChannelOutput), recorded beside y; 0: y alone */
  PetscReal       **yc, **yqc; /* nchannel arrays each: channel c at the step points (n) and at the nodes (nq) */
} MbsSignal;

/* Fourier and order analysis */
typedef struct _p_MbsFourier *MbsFourier;

PETSC_EXTERN PetscErrorCode MbsWindowRegisterAll(void);
PETSC_EXTERN PetscErrorCode MbsFourierCreate(MbsFourier *);
PETSC_EXTERN PetscErrorCode MbsFourierDestroy(MbsFourier *);
PETSC_EXTERN PetscErrorCode MbsFourierSetFromOptions(MbsFourier, MbsModel);
PETSC_EXTERN PetscErrorCode MbsFourierAddHarmonics(MbsFourier, const char[], PetscReal, PetscReal, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode MbsFourierAddCoefficient(MbsFourier, const char[], PetscReal, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode MbsFourierAddStationaryOrders(MbsFourier, const char[], PetscReal, PetscReal, PetscReal, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsFourierSetWindowGain(MbsFourier, PetscReal);
PETSC_EXTERN PetscErrorCode MbsFourierCompute(MbsFourier, PetscInt, const PetscReal[], const PetscReal[], const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsFourierComputeSignal(MbsFourier, const MbsSignal *);
PETSC_EXTERN PetscErrorCode MbsFourierCheckSignal(MbsFourier, const MbsSignal *, const char[]);
PETSC_EXTERN PetscErrorCode MbsFourierExplainAlias(MbsFourier, const MbsSignal *, const char[], char[], size_t);
PETSC_EXTERN PetscErrorCode MbsFourierGetNyquistStep(MbsFourier, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsQuadratureWeights(PetscInt, const PetscReal[], PetscReal, PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsFourierAdjointDensity(MbsFourier, const PetscReal[], const PetscReal[], PetscReal, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsFourierAdjointDensitySamples(MbsFourier, const PetscReal[], const PetscReal[], PetscInt, const PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsFourierGetNumCoefficients(MbsFourier, PetscInt *);
PETSC_EXTERN PetscErrorCode MbsFourierGetCoefficients(MbsFourier, const PetscReal **, const PetscReal **);
PETSC_EXTERN PetscErrorCode MbsFourierGetFrequencies(MbsFourier, const PetscReal **);
PETSC_EXTERN PetscErrorCode MbsFourierGetWindow(MbsFourier, PetscInt, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsFourierGetOrderLayout(MbsFourier, PetscInt *, PetscInt *, const PetscReal **, PetscInt *, const PetscReal **);
PETSC_EXTERN PetscErrorCode MbsFourierWindowCentre(PetscReal, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal *);

typedef PetscErrorCode (*MbsStateMonitor)(MbsModel, PetscInt, PetscReal, const PetscReal[], void *);
PETSC_EXTERN PetscErrorCode MbsSimulate(MbsModel, const char[], MbsStateMonitor, void *, MbsSignal *);
PETSC_EXTERN PetscErrorCode MbsSimulateHelp(MbsModel);
PETSC_EXTERN PetscErrorCode MbsCheckFixedStepCount(MbsModel, PetscReal);
/* A sampled controller in the loop: for loop l, given its sensor y at sample n (time t), the force u held until the
   next sample */
typedef PetscErrorCode (*MbsSampleFn)(MbsModel, PetscInt, PetscInt, PetscReal, PetscReal, PetscReal *, void *);
PETSC_EXTERN PetscErrorCode MbsSimulateClosedLoop(MbsModel, const char[], PetscReal, PetscInt, const PetscInt[], MbsSampleFn, void *, MbsSignal *);
PETSC_EXTERN PetscErrorCode MbsSignalCheck(MbsModel, const MbsSignal *);
PETSC_EXTERN PetscErrorCode MbsSignalDestroy(MbsSignal *);
PETSC_EXTERN PetscErrorCode MbsSignalGetChannel(const MbsSignal *, PetscInt, MbsSignal *);
PETSC_EXTERN PetscErrorCode MbsSignalAddNoise(MbsSignal *, PetscReal, const PetscReal[], PetscInt);
PETSC_EXTERN PetscErrorCode MbsNormalSequence(PetscInt, PetscInt, PetscReal[]);

/* Measurements (HDF5): one channel's tables, or a file of several channels (measurement.c) */
typedef struct MbsMeasurement_ MbsMeasurement;
struct MbsMeasurement_ {
  char            model[64], output[64], units[32], created_by[128]; /* output: the channel's name */
  PetscInt        nfreq;                                             /* /spectrum: nfreq > 0 when present */
  PetscReal      *frequency;                                         /* [Hz] */
  PetscReal      *amplitude;
  PetscReal      *a, *b;          /* optional (NULL when absent) */
  PetscInt        nspeed, norder; /* /orders: nspeed > 0 when present */
  PetscReal      *speed;          /* [rpm] */
  PetscReal      *order;
  PetscReal      *order_amplitude;   /* nspeed x norder, row-major */
  PetscReal      *order_a, *order_b; /* optional (NULL when absent): /orders/A, /B, phase-referred to t = 0 */
  char            order_domain[16];  /* "time" or "angle": the windows of the order analysis (attribute 'domain' of /orders) */
  PetscInt        nsignal;           /* /signal: nsignal > 0 when present */
  PetscReal      *t, *y;
  PetscReal      *signal_speed;            /* optional (NULL when absent): /signal/speed [rpm], a speed channel at t */
  PetscInt        ntacho;                  /* /tacho: ntacho > 0 when present */
  PetscReal      *tacho;                   /* tachometer pulse times [s] */
  PetscInt        nprofile;                /* /speed_profile: nprofile > 0 when present */
  PetscReal      *profile_t, *profile_rpm; /* the engine speed [rpm] at times [s] */
  PetscReal      *profile_angle;           /* optional (NULL when absent): the crank angle [rad] at those times */
  PetscInt        nfrf;                    /* /frf: nfrf > 0 when present (the root's, copied into each channel) */
  PetscReal      *frf_frequency;           /* the root's /frf/frequency_hz [Hz], > 0, increasing */
  PetscReal      *frf_re, *frf_im;         /* a channel's /frf/real, /frf/imag: H(f) [unit/N] (NULL when absent) */
  char            frf_load[64];            /* attribute 'load' of /frf/frequency_hz: the force element loaded */
  PetscInt        nchannel;                /* named channels (/channels/NAME); 0: one channel, whose tables are these */
  MbsMeasurement *channel;                 /* their tables (spectrum, orders, signal) and units, output their names */
};

PETSC_EXTERN PetscErrorCode MbsMeasurementRead(MPI_Comm, const char[], MbsMeasurement *);
PETSC_EXTERN PetscErrorCode MbsMeasurementOptions(MPI_Comm, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsMeasurementWrite(MPI_Comm, const char[], const MbsMeasurement *);
PETSC_EXTERN PetscErrorCode MbsMeasurementReset(MbsMeasurement *);
PETSC_EXTERN PetscErrorCode MbsMeasurementGetChannels(const MbsMeasurement *, PetscInt *, const MbsMeasurement **);
PETSC_EXTERN PetscErrorCode MbsMeasurementScaleNoise(MbsMeasurement *, PetscReal, PetscInt);

/* Costs J(y) of a simulated output against a measurement, with the adjoint density they induce */
typedef struct _p_MbsCost *MbsCost;

PETSC_EXTERN PetscErrorCode MbsCostRegisterAll(void);
PETSC_EXTERN PetscErrorCode MbsCostRegister(const char[], PetscErrorCode (*)(MbsCost));
PETSC_EXTERN PetscErrorCode MbsCostCreate(MbsModel, MbsCost *);
PETSC_EXTERN PetscErrorCode MbsCostSetFromOptions(MbsCost);
PETSC_EXTERN PetscErrorCode MbsCostSetUp(MbsCost, const char[], const MbsMeasurement *);
PETSC_EXTERN PetscErrorCode MbsCostGetType(MbsCost, const char **);
PETSC_EXTERN PetscErrorCode MbsCostEvaluate(MbsCost, const MbsSignal *, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsCostSignalUsable(MbsCost, const MbsSignal *, PetscBool *);
PETSC_EXTERN PetscErrorCode MbsCostDensity(MbsCost, PetscReal, const PetscReal[], PetscReal *, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsCostRecord(MbsCost, const MbsSignal *, PetscInt);
PETSC_EXTERN PetscErrorCode MbsCostDestroy(MbsCost *);

/* Value and adjoint gradient of a cost with respect to a subset of the model's parameters */
PETSC_EXTERN PetscErrorCode MbsGradient(MbsModel, MbsCost, PetscInt, const PetscInt[], PetscReal *, PetscReal[], PetscBool *);

/* Optimal input design: the A-optimal cost of a nodal input on the sensitivity-extended system, its adjoint gradient */
typedef struct _p_MbsDesign *MbsDesign;

typedef struct {
  PetscInt   n, next; /* sample times, and the next one to keep */
  PetscReal *t, *z;   /* [s], n x N extended states */
} MbsDesignSamples;

PETSC_EXTERN PetscErrorCode MbsDesignCreate(MPI_Comm, MbsDesign *);
PETSC_EXTERN PetscErrorCode MbsDesignGetSizes(MbsDesign, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode MbsDesignCheckSampleTimes(MbsDesign, const char[], PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsDesignCheckSteps(MbsDesign);
PETSC_EXTERN PetscErrorCode MbsDesignSample(MbsDesign, PetscReal, MbsDesignSamples *, PetscReal *, PetscReal *, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsDesignDestroy(MbsDesign *);
PETSC_EXTERN PetscErrorCode MbsDesignSetInput(MbsDesign, const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsDesignEvaluate(MbsDesign, PetscReal, MbsStateMonitor, void *, PetscReal *, PetscReal *, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsDesignGradient(MbsDesign, const PetscReal[], PetscReal, PetscReal *, PetscReal[], PetscBool *);
PETSC_EXTERN PetscErrorCode MbsDesignEigen(PetscInt, const PetscReal[], PetscReal[], PetscReal[], PetscReal *);
PETSC_EXTERN PetscReal      MbsDesignPsi(MbsDesign, PetscReal);
PETSC_EXTERN PetscReal      MbsDesignPsiDerivative(MbsDesign, PetscReal);
PETSC_EXTERN PetscReal      MbsDesignPsiInverse(MbsDesign, PetscReal);

/* Modes of the linearised model (SLEPc PEP) */
typedef struct {
  PetscInt   nq;                           /* coordinates */
  PetscInt   nmode;                        /* oscillatory modes (complex pairs), by frequency */
  PetscReal *frequency_hz, *damping_ratio; /* nmode */
  PetscReal *modes;                        /* nmode x nq x (re, im), largest component 1 */
  PetscInt   nreal;                        /* real eigenvalues, rigid-body zeros included, descending */
  PetscReal *real_eigenvalues;             /* [1/s] */
  PetscInt   nzero;                        /* rigid-body (zero) eigenvalues */
  PetscBool  unstable;
  PetscInt   nlambda; /* finite eigenvalues, conjugates included */
  PetscReal *lambda;  /* nlambda x (re, im) [1/s], by modulus, then Im descending */
  /* in the model's body coordinates z (MbsModelModeCoordinates; nz = 0: none) */
  PetscInt   nz;
  char      *z_coordinates; /* what z holds */
  PetscReal *modes_z;       /* nmode x nz x (re, im), the z component of largest modulus 1 */
  PetscInt   nundamped;     /* modes without damping, K phi = w^2 M phi, by frequency */
  PetscReal *undamped_hz;   /* nundamped */
  PetscReal *undamped_z;    /* nundamped x nz, phi^T M_z phi = 1, the component of largest modulus positive */
  /* shares of the kinetic energy by family of motion (MbsModelEnergyFamilies; nfamily = 0: none) */
  PetscInt   nfamily;
  char      *families;       /* their names, comma-separated */
  PetscReal *energy_share;   /* nmode x nfamily */
  PetscReal *undamped_share; /* nundamped x nfamily */
} MbsEigenResult;

PETSC_EXTERN PetscErrorCode MbsEigenCompute(MbsModel, const char[], MbsEigenResult *);
PETSC_EXTERN PetscErrorCode MbsEigenComputeOperators(PetscInt, const PetscReal[], const PetscReal[], const PetscReal[], const char[], MbsEigenResult *);
PETSC_EXTERN PetscErrorCode MbsEigenComputeFirstOrder(PetscInt, PetscInt, const PetscReal[], const PetscReal[], const char[], MbsEigenResult *);
PETSC_EXTERN PetscErrorCode MbsEigenViewEigenvalues(MPI_Comm, const MbsEigenResult *, const MbsEigenResult *);
PETSC_EXTERN PetscErrorCode MbsEigenView(MPI_Comm, const MbsEigenResult *);
PETSC_EXTERN PetscErrorCode MbsEigenResultReset(MbsEigenResult *);

/*
  Black-box controllers (mbs_controller.h): built in, or loaded from a shared library by path; gains estimated by
  perturbing input and time (perturbation.c)
*/
typedef struct _p_MbsController *MbsController;

typedef enum {
  MBS_PERTURB_PID,
  MBS_PERTURB_P,
  MBS_PERTURB_INTEGRAL,
  MBS_PERTURB_DOUBLE_INTEGRAL,
  MBS_PERTURB_TRIPLE_INTEGRAL,
  MBS_PERTURB_DERIVATIVE,
  MBS_PERTURB_DOUBLE_DERIVATIVE
} MbsPerturbMethod;
PETSC_EXTERN const char *const MbsPerturbMethods[];

typedef struct {
  MbsPerturbMethod method;
  PetscReal        dt, dy;   /* dt_1 [s] and dy_1 (the spec's (50): dt_1 = delta dt_sim, dy_1 numerically dt_1) */
  PetscInt         j;        /* single-gain estimators: the perturbation used (dt_j = j dt_1, dy_j = j dy_1) */
  PetscInt         substeps; /* each perturbation step as this many equal steps (partitioned perturbation) */
  PetscBool        separate; /* PID: each j after its own flat step of dt_j (the protocol of separate simulations) */
} MbsPerturbSettings;

typedef struct {
  PetscReal t0, y0, u0;
  PetscReal gain[3];           /* PID: K_p, K_i, K_d; single-gain estimators: gain[0] */
  PetscReal matrix[9], rhs[3]; /* PID: the system (49), row j-1 for perturbation j */
  PetscReal du;                /* single-gain: du_j from the black box */
  PetscReal increment[3];      /* single-gain: the input increment of the spec's formula; double derivation also dy_j2, dydot_j */
} MbsPerturbResult;

PETSC_EXTERN PetscErrorCode MbsControllerCreate(MPI_Comm, MbsController *);
PETSC_EXTERN PetscErrorCode MbsControllerLoad(MbsController, const char[], const char[]);
PETSC_EXTERN PetscErrorCode MbsControllerSetFromOptions(MbsController, const char[]);
PETSC_EXTERN PetscErrorCode MbsControllerGetSensor(MbsController, const char **);
PETSC_EXTERN PetscErrorCode MbsModelSetControlLoop(MbsModel, PetscInt, MbsController, PetscViewer);
PETSC_EXTERN PetscErrorCode MbsControllerSetParams(MbsController, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode MbsControllerGetParams(MbsController, PetscInt *, const PetscReal **, const char *const **);
PETSC_EXTERN PetscErrorCode MbsControllerInit(MbsController, PetscReal, PetscReal, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsControllerStep(MbsController, PetscReal, PetscReal, PetscReal, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsControllerGetOutput(MbsController, PetscReal *);
PETSC_EXTERN PetscErrorCode MbsControllerSaveCreate(MbsController, void **);
PETSC_EXTERN PetscErrorCode MbsControllerSave(MbsController, void *);
PETSC_EXTERN PetscErrorCode MbsControllerRestore(MbsController, const void *);
PETSC_EXTERN PetscErrorCode MbsControllerView(MbsController, PetscViewer);
PETSC_EXTERN PetscErrorCode MbsControllerDestroy(MbsController *);
PETSC_EXTERN PetscErrorCode MbsControllerPerturb(MbsController, const MbsPerturbSettings *, PetscReal, PetscReal, MbsPerturbResult *);
