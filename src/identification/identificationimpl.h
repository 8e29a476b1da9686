/* The identification problem: the adjoint gradient of a cost, experiments over ranks, the objective TAO sees, the cost scan. */
#pragma once

#include "costs/costimpl.h"

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
PETSC_INTERN PetscErrorCode MbsExperimentOptionsPush(MbsExperiment *);
PETSC_INTERN PetscErrorCode MbsExperimentOptionsPop(MbsExperiment *);

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
};

typedef PetscErrorCode (*MbsObjectiveWriteFn)(MbsObjective, MbsH5Writer *, void *);

PETSC_INTERN PetscErrorCode MbsObjectiveCreate(MPI_Comm, MbsObjective *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveDestroy(MbsObjective *);
PETSC_INTERN PetscErrorCode MbsObjectiveGetValues(MbsObjective, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsObjectiveSetValues(MbsObjective, const PetscReal[]);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluate(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveEvaluateLocal(MbsObjective, const PetscReal[], PetscReal *, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsObjectiveRecord(MbsObjective, PetscInt);
PETSC_INTERN PetscErrorCode MbsObjectiveFreezeSteps(MbsObjective, PetscBool);
PETSC_INTERN PetscErrorCode MbsObjectiveWriteFile(MbsObjective, const char[], const PetscReal[], const PetscReal[], MbsObjectiveWriteFn, void *);

/* Checkpoint and restart of an identification: the log of TAO's evaluations (checkpoint.c) */
typedef struct _p_MbsCheckpoint *MbsCheckpoint;
struct _p_MbsCheckpoint {
  MbsObjective        obj;
  char                path[PETSC_MAX_PATH_LEN];    /* written ("" for none) */
  char                restart[PETSC_MAX_PATH_LEN]; /* read ("" for none) */
  char               *options, *measurements;      /* what the numbers depend on, as "key value" lines */
  PetscReal           J0, J0_saved;                /* J at the start: of this run, of the restart file */
  PetscInt            n, nalloc;                   /* evaluations logged */
  PetscReal          *x, *J, *g, *ok, *time;       /* each evaluation's point, cost, gradient, success, wall time */
  PetscInt            nreplay, next;               /* evaluations a restart replays; the index of the next one */
  PetscLogDouble      start;                       /* the clock: offset + (now - start) */
  PetscReal           offset;
  MbsObjectiveWriteFn history; /* adds the iteration history to the file */
  void               *history_ctx;
};

PETSC_INTERN PetscErrorCode MbsCheckpointCreate(MbsObjective, MbsObjectiveWriteFn, void *, MbsCheckpoint *);
PETSC_INTERN PetscErrorCode MbsCheckpointStart(MbsCheckpoint, PetscReal);
PETSC_INTERN PetscErrorCode MbsCheckpointReplay(MbsCheckpoint, const PetscScalar[], PetscReal *, PetscReal[], PetscBool *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsCheckpointRecord(MbsCheckpoint, const PetscScalar[], PetscReal, const PetscReal[], PetscBool);
PETSC_INTERN PetscErrorCode MbsCheckpointElapsed(MbsCheckpoint, PetscReal *);
PETSC_INTERN PetscErrorCode MbsCheckpointWrite(MbsCheckpoint, const char[]);
PETSC_INTERN PetscErrorCode MbsCheckpointDestroy(MbsCheckpoint *);

/* A J scan on a grid of the two identified parameters (scan.c): it stands above the objective it evaluates */
typedef struct _p_MbsScan *MbsScan;

PETSC_INTERN PetscErrorCode MbsScanCreate(MbsObjective, MbsScan *);
PETSC_INTERN PetscErrorCode MbsScanRun(MbsScan);
PETSC_INTERN PetscErrorCode MbsScanWrite(MbsObjective, MbsH5Writer *, void *);
PETSC_INTERN PetscErrorCode MbsScanDestroy(MbsScan *);
