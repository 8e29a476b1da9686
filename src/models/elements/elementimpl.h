/*
  A multibody system described in a model file (model_described.c): bodies in natural coordinates and a library of
  element types, one file each in this folder, registered by name (element.c).

  Natural coordinates (seed 003, section 3, rigid part): a rigid body has the position r of its centre of mass and
  the unit vectors u, v, w of its axes, q_b = (r, u, v, w), 12 coordinates; a point mass has r only. A body point
  with body coordinates x = (x1, x2, x3) is at r + x1 u + x2 v + x3 w, a body direction d at d1 u + d2 v + d3 w: both
  are LINEAR in q. Every joint, every bushing coordinate and every sensor used here is therefore a sum of at most two
  products a(q).b(q) of such linear vector maps (MbsBilinear): its gradient is linear in q and its Hessian constant,
  which is what makes the element derivatives short and exact.
*/
#pragma once

#include "models/modelimpl.h"

#define MBS_GROUND        (-1)
#define MBS_NAME_LEN      64
#define MBS_MAX_HARMONICS 8

/* A numeric field of the model file: a number, or {param: NAME}, an identifiable parameter of the model */
typedef struct {
  PetscReal value;
  PetscInt  param; /* index into the model's parameters, -1: the fixed value */
} MbsValue;

static inline PetscReal MbsValueOf(const MbsValue *value, const PetscReal p[])
{
  return value->param >= 0 ? p[value->param] : value->value;
}

typedef struct {
  char      name[MBS_NAME_LEN];
  PetscInt  line;
  PetscBool rigid;                          /* 12 natural coordinates; PETSC_FALSE: a point mass, 3 */
  MbsValue  mass;                           /* [kg] */
  PetscReal inertia[9];                     /* about the centre of mass, body axes [kg m^2] */
  PetscReal Jbar[9];                        /* int x x^T dm = tr(I)/2 1 - I, the mass matrix of (u, v, w) [kg m^2] */
  PetscReal r0[3], R0[9], v0[3], omega0[3]; /* R0 = [u v w] column by column */
  PetscInt  offset;                         /* first coordinate in q */
} MbsBody;

/* A vector that is linear in q: sum over at most two bodies of c0 r + c1 u + c2 v + c3 w, plus a constant k */
typedef struct {
  PetscInt  nterm;
  PetscInt  body[2];
  PetscReal c[2][4];
  PetscReal k[3];
} MbsVectorMap;

/* A scalar sum_i sign_i a_i(q).b_i(q) + c (at most two products) */
typedef struct {
  PetscInt     nproduct;
  MbsVectorMap a[2], b[2];
  PetscReal    sign[2];
  PetscReal    c;
} MbsBilinear;

typedef enum {
  MBS_ELEMENT_CONSTRAINT,
  MBS_ELEMENT_FORCE,
  MBS_ELEMENT_EXCITATION, /* a force that depends on time alone: left out of the linearisation */
  MBS_ELEMENT_SENSOR
} MbsElementKind;

typedef struct _MbsDescription *MbsDescription;
typedef struct _MbsElement      MbsElement;
typedef struct _MbsYAMLReader   MbsYAMLReader;

/* What a force element adds at (t, q, v), parameters desc->p: F += -f (the rows M v' - f), Jq += -df/dq, Jv += -df/dv
   (nq x nq, leading dimension ld), Jp += -df/dp (nq x np, leading dimension ld); any of the four may be NULL */
typedef PetscErrorCode (*MbsElementForceFn)(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);
/* A sensor's value at (q, v, a), a = v' the accelerations (NULL unless the type sets acceleration), and dy/dq, dy/dv,
   dy/da (length nq each, may be NULL; the model chains dy/da through a(t, q, v, lambda, p)) */
typedef PetscErrorCode (*MbsElementSensorFn)(MbsDescription, const MbsElement *, const PetscReal[], const PetscReal[], const PetscReal[], PetscReal *, PetscReal[], PetscReal[], PetscReal[]);

/* One element type: how it is read from the file, and what it contributes */
typedef struct {
  MbsElementKind kind;
  /* reads the element's fields (bodies are known) and sets it up at the initial pose: constraint rows, coordinates */
  PetscErrorCode (*read)(MbsYAMLReader *, void *, MbsElement *);
  MbsElementForceFn  force;
  MbsElementSensorFn sensor;
  const char        *unit;         /* of a sensor's value */
  PetscBool          acceleration; /* the sensor reads the accelerations a = v' */
  /* an excitation's size s(t) (its time law, for reports) and ds/dp added into dsdp (length np, may be NULL) */
  PetscReal (*law)(MbsDescription, const MbsElement *, PetscReal, PetscReal[]);
} MbsElementType;

struct _MbsElement {
  char                  name[MBS_NAME_LEN], type[MBS_NAME_LEN];
  PetscInt              line;
  const MbsElementType *ops;
  PetscInt              body[2];   /* a, b (MBS_GROUND: the ground) */
  PetscInt              nrow;      /* constraint rows, or bilinear coordinates of a force element */
  MbsBilinear           row[6];    /* the constraint rows, or the coordinates a force element acts on */
  MbsValue              value[12]; /* stiffness and damping per coordinate, or spring constants */
  PetscReal             vector[2][3];
  PetscInt              nharmonic;
  MbsValue              harmonic[MBS_MAX_HARMONICS][4]; /* amplitude, frequency [Hz] or engine order, phase [rad], power of the crank speed */
  PetscBool             sine[MBS_MAX_HARMONICS];        /* an engine order's sin, not cos */
  PetscReal             until;                          /* an excitation acts on [t0, until] [s] */
  PetscBool             turning;                        /* a sensor's axis turns with its body */
  PetscInt              first_row;                      /* of the constraints in the model's lambda, mu */
};

struct _MbsDescription {
  char              file[PETSC_MAX_PATH_LEN];
  PetscInt          nbody, nelement, nparam, nq, nc;
  MbsBody          *body;
  MbsElement       *element;
  MbsParameterInfo *param_info; /* owned: names, units and descriptions are copies */
  PetscReal         gravity[3];
  PetscInt          output; /* the sensor that is the model's output y */
  PetscReal         t0, tf, dt, dt_max;
  PetscBool         engine_order; /* an element follows the crank angle of speed */
  MbsSpeedProfile   speed;        /* the engine speed (section speed:, and the options of MbsSpeedProfileSetFromOptions) */
  PetscReal        *p;            /* the model's current parameter values, while it evaluates */
  PetscReal        *work;         /* 3 nq x nq + 4 nq scratch of the force elements, then nparam of the excitations' ds/dp */
  /* An element is evaluated on a view of the description (model_described.c): nq its bodies' coordinates alone, the
     bodies' offsets into them, q, v, F, Jq, Jv, Jp, dy/dq local; Jp's columns of the parameters of its value and
     harmonic fields are the ones kept, and its rows read only its bodies el->body */
};

static inline PetscReal *MbsParameterScratch(MbsDescription desc)
{
  return desc->work + 3 * desc->nq * desc->nq + 4 * desc->nq;
}

/* Vector maps and bilinear scalars (kinematics.c) */
PETSC_INTERN void         MbsMapPoint(MbsDescription, PetscInt, const PetscReal[3], MbsVectorMap *);
PETSC_INTERN void         MbsMapDirection(MbsDescription, PetscInt, const PetscReal[3], MbsVectorMap *);
PETSC_INTERN void         MbsMapConstant(const PetscReal[3], MbsVectorMap *);
PETSC_INTERN void         MbsMapDifference(const MbsVectorMap *, const MbsVectorMap *, MbsVectorMap *);
PETSC_INTERN void         MbsMapEval(MbsDescription, const MbsVectorMap *, const PetscReal[], PetscBool, PetscReal[3]);
PETSC_INTERN void         MbsMapAddTranspose(MbsDescription, const MbsVectorMap *, PetscReal, const PetscReal[3], PetscReal[], PetscInt);
PETSC_INTERN void         MbsMapAddOuter(MbsDescription, const MbsVectorMap *, const MbsVectorMap *, const PetscReal[9], PetscReal, PetscReal[], PetscInt);
PETSC_INTERN MbsBilinear *MbsElementNewRow(MbsElement *);
PETSC_INTERN void         MbsBilinearProduct(const MbsVectorMap *, const MbsVectorMap *, PetscReal, MbsBilinear *);
PETSC_INTERN PetscReal    MbsBilinearValue(MbsDescription, const MbsBilinear *, const PetscReal[]);
PETSC_INTERN PetscReal    MbsBilinearRate(MbsDescription, const MbsBilinear *, const PetscReal[], const PetscReal[]);
PETSC_INTERN void         MbsBilinearAddGradient(MbsDescription, const MbsBilinear *, const PetscReal[], PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBilinearAddHessian(MbsDescription, const MbsBilinear *, PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBilinearAddRateGradient(MbsDescription, const MbsBilinear *, const PetscReal[], PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBodyPose(const MbsBody *, PetscReal[], PetscReal[]);
PETSC_INTERN void         MbsMapInitial(MbsDescription, const MbsVectorMap *, PetscReal[3]);
PETSC_INTERN void         MbsPerpendicular(const PetscReal[3], PetscReal[3], PetscReal[3]);
PETSC_INTERN void         MbsRelativeDirection(MbsDescription, const MbsElement *, const PetscReal[3], PetscReal[3]);
PETSC_INTERN void         MbsJointPointRows(MbsDescription, MbsElement *, const PetscReal[2][3]);
PETSC_INTERN void         MbsJointAxisRows(MbsDescription, MbsElement *, const PetscReal[3]);
PETSC_INTERN void         MbsJointRotationRows(MbsDescription, MbsElement *);
PETSC_INTERN void         MbsJointLineRows(MbsDescription, MbsElement *, const PetscReal[2][3], const PetscReal[3]);
PETSC_INTERN void         MbsRelativeAngleRows(MbsDescription, MbsElement *, const PetscReal[3]);
PETSC_INTERN PetscReal    MbsRelativeAngle(MbsDescription, const MbsElement *, const PetscReal[], PetscReal[], PetscReal[]);
PETSC_INTERN void         MbsCoordinateForce(MbsDescription, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const MbsValue *, const MbsValue *, PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);

/* Reading the file (described_file.c); the element readers use these */
PETSC_INTERN PetscErrorCode MbsDescriptionRead(const char[], MbsDescription *);
PETSC_INTERN PetscErrorCode MbsDescriptionDestroy(MbsDescription *);
PETSC_INTERN PetscErrorCode MbsSensorRead(MbsYAMLReader *, void *, MbsElement *);
PETSC_INTERN void           MbsSensorAlong(MbsDescription, const MbsElement *, const PetscReal[], PetscBool, PetscReal *, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsYAMLReadBodies(MbsYAMLReader *, void *, MbsElement *);
PETSC_INTERN PetscErrorCode MbsYAMLReadBody(MbsYAMLReader *, void *, const char[], PetscBool, PetscInt *);
PETSC_INTERN PetscErrorCode MbsYAMLReadVector(MbsYAMLReader *, void *, const char[], PetscBool, PetscInt, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsYAMLReadNumber(MbsYAMLReader *, void *, const char[], PetscReal *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsYAMLReadWords(MbsYAMLReader *, void *, const char[], PetscInt *, const char *[]);
PETSC_INTERN PetscErrorCode MbsYAMLReadRotation(MbsYAMLReader *, void *, const char[], const char[], PetscReal[9], PetscBool *);
PETSC_INTERN PetscErrorCode MbsYAMLReadUnitVector(MbsYAMLReader *, void *, const char[], PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadValues(MbsYAMLReader *, void *, const char[], const char[], PetscBool, PetscInt, MbsValue[], PetscInt *);
PETSC_INTERN PetscErrorCode MbsYAMLReadJointPoints(MbsYAMLReader *, void *, MbsElement *, PetscReal[2][3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadJointAxis(MbsYAMLReader *, void *, MbsElement *, PetscReal[2][3], PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadWorldPoint(MbsYAMLReader *, void *, PetscInt, PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLError(MbsYAMLReader *, void *, const char[], ...);
PETSC_INTERN MbsDescription MbsYAMLReaderDescription(MbsYAMLReader *);

/* Engine-order loads (engine_order.c) */
PETSC_INTERN PetscErrorCode MbsEngineOrderRead(MbsYAMLReader *, void *, const char[], MbsElement *);
PETSC_INTERN PetscReal      MbsEngineOrderValue(MbsDescription, const MbsElement *, PetscReal, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsFollowerLoad(MbsDescription, const MbsElement *, const MbsVectorMap *, const MbsVectorMap *, PetscReal, const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);

/* The element registry (element.c) */
PETSC_INTERN PetscErrorCode MbsElementTypeFind(const char[], const MbsElementType **, char[], size_t);
PETSC_INTERN void           MbsDescriptionLocalPoint(MbsDescription, PetscInt, const PetscReal[3], PetscReal[3]);
PETSC_INTERN void           MbsDescriptionLocalDirection(MbsDescription, PetscInt, const PetscReal[3], PetscReal[3]);

#define MBS_ELEMENT_TYPE(name) PETSC_INTERN PetscErrorCode MbsElementGetType_##name(const MbsElementType **)
MBS_ELEMENT_TYPE(Spherical);
MBS_ELEMENT_TYPE(Revolute);
MBS_ELEMENT_TYPE(Fixed);
MBS_ELEMENT_TYPE(PointOnLine);
MBS_ELEMENT_TYPE(SpringDamper);
MBS_ELEMENT_TYPE(Bushing);
MBS_ELEMENT_TYPE(RotationalSpring);
MBS_ELEMENT_TYPE(Force);
MBS_ELEMENT_TYPE(Position);
MBS_ELEMENT_TYPE(Velocity);
MBS_ELEMENT_TYPE(Angle);
MBS_ELEMENT_TYPE(Prismatic);
MBS_ELEMENT_TYPE(Cylindrical);
MBS_ELEMENT_TYPE(Universal);
MBS_ELEMENT_TYPE(Distance);
MBS_ELEMENT_TYPE(PointOnPlane);
MBS_ELEMENT_TYPE(EngineForce);
MBS_ELEMENT_TYPE(EngineTorque);
MBS_ELEMENT_TYPE(Acceleration);
