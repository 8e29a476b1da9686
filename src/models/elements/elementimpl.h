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
#define MBS_MAX_VALUE     24 /* value fields of an element: a maxwell element's 4 per coordinate of 6 */

/* A numeric field of the model file: a number, or {param: NAME}, an identifiable parameter of the model */
typedef struct {
  PetscReal value;
  PetscInt  param; /* index into the model's parameters, -1: the fixed value */
} MbsValue;

static inline PetscReal MbsValueOf(const MbsValue *value, const PetscReal p[])
{
  return value->param >= 0 ? p[value->param] : value->value;
}

/*
  A flexible body (flexible.c, doc/model-files.md, "Flexible bodies"): a rigid body's (r, u, v, w) and gamma_jk = delta_j e_k (e = u, v, w)
  for its nmode modes, 4 + 3 nmode slots of 3 coordinates, in the slot order (r, u, v, w, gamma_11, gamma_12, gamma_13,
  gamma_21, ...). Its node i is at r + sum_k x_ik e_k + sum_jk Phi_i[k, j] gamma_jk, linear in q as a rigid body's
  points: a vector map's term on it carries the coefficients of the gamma slots, shape.
*/
typedef struct {
  PetscInt   nmode, nnode, nslot; /* nslot = 4 + 3 nmode */
  PetscReal *slot_mass;           /* nslot x nslot: M = slot_mass (x) I3 on the body's coordinates */
  PetscReal *x;                   /* nnode x 3: the nodes in body axes [m] */
  PetscReal *shape;               /* nnode x 3 nmode: node i's coefficients of the gamma slots, Phi_i[k, j] at 3 j + k */
  PetscReal *unit;                /* 3 nmode x 3 nmode identity: the coefficients of one slot gamma_jk */
  PetscReal *stiffness;           /* nmode: omega_j^2 of the mass-normalised modes [1/s^2] */
  MbsValue   damping;             /* modal damping ratio zeta, the same for every mode */
} MbsFlexible;

typedef struct {
  char         name[MBS_NAME_LEN];
  PetscInt     line;
  MbsFlexible *flexible;                       /* NULL: rigid or a point mass */
  PetscBool    rigid;                          /* 12 natural coordinates (3 (4 + 3 nmode) when flexible); PETSC_FALSE: a point mass, 3 */
  MbsValue     mass;                           /* [kg] */
  MbsValue     moment[6];                      /* Ixx, Iyy, Izz, Ixy, Iyz, Ixz about the centre of mass, body axes [kg m^2] */
  PetscReal    r0[3], R0[9], v0[3], omega0[3]; /* R0 = [u v w] column by column; the file's values, at which every element's geometry is read */
  MbsValue     start[18];                      /* position, velocity, angular_velocity, orientation (u, v, w): the initial state's numbers or parameters */
  PetscBool    start_p;                        /* a parameter among start */
  PetscInt     offset;                         /* first coordinate in q */
} MbsBody;

/* Node of the body at body coordinates x (to 1e-9 of the body's size), or -1 */
static inline PetscInt MbsFlexibleNode(const MbsBody *body, const PetscReal x[3])
{
  const MbsFlexible *flexible = body->flexible;
  PetscReal          size     = 0;

  for (PetscInt i = 0; i < 3 * flexible->nnode; i++) size = PetscMax(size, PetscAbsReal(flexible->x[i]));
  for (PetscInt i = 0; i < flexible->nnode; i++) {
    const PetscReal *xi = flexible->x + 3 * i;

    if (PetscAbsReal(xi[0] - x[0]) + PetscAbsReal(xi[1] - x[1]) + PetscAbsReal(xi[2] - x[2]) <= 1e-9 * PetscMax(size, 1)) return i;
  }
  return -1;
}

/* A vector that is linear in q: sum over at most two bodies of c0 r + c1 u + c2 v + c3 w (+ scale sum_m shape_m
   gamma_m on a flexible body), plus a constant k */
typedef struct {
  PetscInt         nterm;
  PetscInt         body[2];
  PetscReal        c[2][4];
  const PetscReal *shape[2]; /* NULL, or the 3 nmode coefficients of the gamma slots (a node's, or MbsFlexible.unit's) */
  PetscReal        scale[2];
  PetscReal        k[3];
} MbsVectorMap;

/* A scalar sum_i sign_i a_i(q).b_i(q) + c (at most two products) */
typedef struct {
  PetscInt     nproduct;
  MbsVectorMap a[2], b[2];
  PetscReal    sign[2];
  PetscReal    c;
} MbsBilinear;

/* A sine sweep F = A sin(phi(t) + phase) on [t0, t1]: instantaneous frequency f0 + (f1 - f0) tau / T (linear) or
   f0 (f1 / f0)^(tau / T) (exponential), tau = t - t0, T = t1 - t0 (force.c) */
typedef enum {
  MBS_SWEEP_NONE,
  MBS_SWEEP_LINEAR,
  MBS_SWEEP_EXPONENTIAL
} MbsSweepLaw;

typedef struct {
  MbsSweepLaw law;
  MbsValue    f[2]; /* f0, f1 [Hz] */
  MbsValue    t[2]; /* t0, t1 [s] */
} MbsSweep;

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
/*
  The directional second derivatives of a force element, for the sensitivity equations of optimal input design
  (sensitivity.c): the derivatives of Jq = -df/dq and Jv = -df/dv along (q, v, p) + eps (sq, sv, e_j) at eps = 0,

    Dq += d/deps Jq,   Dv += d/deps Jv   (nq x nq, leading dimension ld),

  which hold d/dq (Jq sq + Jv sv + Jp_j) and d/dv (...) since second derivatives commute; work: MBS_SECOND_WORK(nq).
*/
typedef PetscErrorCode (*MbsElementForceSecondFn)(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, PetscReal[], PetscReal[], PetscInt, PetscReal[]);
#define MBS_SECOND_WORK(nq) (3 * (nq) * (nq) + 6 * (nq))
/* A sensor's value at (q, v, a), a = v' the accelerations (NULL unless the type sets acceleration), and dy/dq, dy/dv,
   dy/da (length nq each, may be NULL; the model chains dy/da through a(t, q, v, lambda, p)) */
typedef PetscErrorCode (*MbsElementSensorFn)(MbsDescription, const MbsElement *, const PetscReal[], const PetscReal[], const PetscReal[], PetscReal *, PetscReal[], PetscReal[], PetscReal[]);

/*
  An element with internal first-order states s (el->nstate <= MBS_MAX_STATE of them, the damper deflections of a Maxwell
  element, maxwell.c): at (t, q, v, s, s') of its view, one block of ld = nq + nstate rows, the force rows -f(q, v, s)
  (nq, as a force element's F) and then its state rows R(q, v, s, s') (nstate), each affine in s', added into R (ld),
  their derivatives by the columns (q, v, s, s') into J (ld x (2 nq + 2 nstate)) and by the parameters into Jp (ld x
  np); s, s' are the element's own states; sdot, J and Jp may be NULL
*/
#define MBS_MAX_STATE 6
typedef PetscErrorCode (*MbsElementStateFn)(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[]);

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
  /* a sensor whose value depends on the parameters directly (not through U): dy/dp at (q, v, a) added into dydp (np; a
     as the sensor's) */
  PetscErrorCode (*sensor_p)(MbsDescription, const MbsElement *, const PetscReal[], const PetscReal[], const PetscReal[], PetscReal[]);
  /* a force's or excitation's second derivatives (each in its element file; the laws in force_law.c); NULL: none, and design refuses the model */
  MbsElementForceSecondFn force_second;
  /* its points el->vector[0], el->vector[1] may have coordinates that are parameters (geometry.c), and its callbacks
     give their derivatives; rows: rebuilds the rows that depend on the points after they moved (NULL: none do) */
  PetscBool geometric;
  void (*rows)(MbsDescription, MbsElement *);
} MbsElementType;

/*
  The second derivatives of a state element for the sensitivity equations of design, as MbsElementForceSecondFn's: at
  (t, q, v, s) of its view, the derivative of its block's J (MbsElementStateFn) by the columns (q, v, s) plus shift
  times that of its d/ds' (the columns s', constant in U), along (q, v, s, p) + eps (sq, sv, ss, e_j) at eps = 0, added
  into D (ld x (2 nq + nstate), ld = nq + nstate); the shift term is shift d/ds' (dR/dp_j). work: MBS_SECOND_WORK(nq).
*/
typedef PetscErrorCode (*MbsElementStateSecondFn)(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, PetscReal, PetscReal[], PetscReal[]);

/*
  A coordinate of an element's point that is a parameter (geometry.c): el->vector[point], the point in the axes of
  el->body[point], is affine in the parameter, x = x0 + (p - p0) dx (dx = e_c for a coordinate c of point_a or point_b
  or of a sensor's ground point on a point mass; the body's axis R0^T e_c for one of point, given in ground coordinates
  at the initial pose, on a rigid body, once for each body). line and field name it in messages.
*/
#define MBS_MAX_GEOMETRY 6
typedef struct {
  PetscInt  param, point, line;
  PetscReal dx[3], p0;
  char      field[16];
} MbsGeometry;

/* A type whose elements have internal states (kind MBS_ELEMENT_FORCE, force NULL; its read sets el->nstate > 0): its
   table, then its rows, its states s(t0) at the initial pose q (a state of rest: R(q, 0, s, 0) = 0) and, with ds not
   NULL, their derivative ds along dq (the start pose moving with a parameter; NULL: fixed) and p_j (j >= 0: its points'
   parameter, geometry.c), and its second derivatives (NULL: none, and design refuses the model) */
typedef struct {
  MbsElementType    base;
  MbsElementStateFn state;
  void (*state_initial)(MbsDescription, const MbsElement *, const PetscReal q[], const PetscReal dq[], PetscInt j, PetscReal s[], PetscReal ds[]);
  MbsElementStateSecondFn state_second;
} MbsElementStateType;

/* How a joint's row reads its axis e (geometry.c): n_i(a).(P_b - P_a) (a line's), n_i(a).z(b) (a common axis), or
   z(a).(P_b - P_a) (a plane's normal), with z the axis and n_1, n_2 its normals in the body axes of a and b */
typedef enum {
  MBS_AXIS_NONE,
  MBS_AXIS_LINE_1,
  MBS_AXIS_LINE_2,
  MBS_AXIS_COMMON_1,
  MBS_AXIS_COMMON_2,
  MBS_AXIS_NORMAL,
  MBS_AXIS_GROUND, /* a prescribed motion's e.(P - P0), e in ground axes (prescribed.c) */
  MBS_AXIS_CROSS   /* a universal joint's z(a).z(b) of its two axes (universal.c) */
} MbsAxisRow;

struct _MbsElement {
  char                  name[MBS_NAME_LEN], type[MBS_NAME_LEN];
  PetscInt              line;
  const MbsElementType *ops;
  PetscInt              body[2];              /* a, b (MBS_GROUND: the ground) */
  PetscInt              nrow;                 /* constraint rows, or bilinear coordinates of a force element */
  MbsBilinear           row[6];               /* the constraint rows, or the coordinates a force element acts on */
  MbsValue              value[MBS_MAX_VALUE]; /* stiffness and damping per coordinate, or spring constants */
  PetscReal             vector[2][3];
  PetscInt              nharmonic;
  MbsValue              harmonic[MBS_MAX_HARMONICS][4]; /* amplitude, frequency [Hz] or engine order, phase [rad], power of the crank speed */
  PetscBool             sine[MBS_MAX_HARMONICS];        /* an engine order's sin, not cos */
  PetscReal             until;                          /* an excitation acts on [t0, until] [s] */
  MbsValue              ramp[2];                        /* a force's taper sin^2: its start (a sweep's t0) and length [s] (length 0: none) */
  PetscBool             turning;                        /* a sensor's axis turns with its body */
  PetscInt              first_row;                      /* of the constraints in the model's lambda, mu */
  struct _MbsForceLaw  *law;                            /* nonlinear laws of the force values (force_law.c), or NULL: all linear */
  MbsSweep              sweep;                          /* a force's sweep instead of harmonics */
  PetscInt              nnode;                          /* a force's history instead: nodes (t, F), owned */
  PetscReal            *node_t, *node_F;
  PetscInt              nstate, first_state; /* internal states (MbsElementStates()) and the first one's index in the model's s */
  /* a rheonomic constraint (one row, Phi(q) - d(t) = 0, prescribed.c): the time derivative of d of the given order
     (0, 1, 2) at t, and its derivatives by the parameters into dddp (length np, set; may be NULL); NULL: rows that
     hold for ever */
  PetscReal (*motion)(MbsDescription, const MbsElement *, PetscReal, PetscInt, PetscReal[]);
  const struct _MbsElement *constraint;  /* a reaction sensor (reaction_force.c): the constraint whose multiplier it reads */
  PetscBool                 takes_input; /* a force with input: true, which a nodal input of the model (-input_file) drives */
  const MbsInput           *input;       /* that input while the model has one (model_described.c), replacing its own law */
  PetscInt                  ngeometry;   /* coordinates of its points that are parameters (geometry.c) */
  MbsGeometry               geometry[MBS_MAX_GEOMETRY];
  PetscReal                 point0[2][3]; /* el->vector[0..1] at the file's values */
  PetscReal                 control;      /* the force u of a controller in the loop on that force, subtracted from its law */
  PetscInt                  npoint_row;   /* a joint's first rows a(q).(P_b - P_a), which follow its points (geometry.c) */
  /* a constraint whose rows follow its points otherwise, or the parameters of its values (distance.c): dPhi_i/dp_j as a
     bilinear scalar, false when p_j does not move row i; its type's rows callback then runs at every update
     (MbsGeometryUpdate). NULL: MbsJointRowP */
  PetscBool (*row_p)(MbsDescription, const MbsElement *, PetscInt, PetscInt, MbsBilinear *);
  /* a force that depends on q and v only through its rows el->row (its read says so): its -df/dq and -df/dv vanish
     outside the coordinates they read (MbsBilinearMark), which the sparse Jacobian leaves out (model_described.c) */
  PetscBool row_forces;
  /* a joint's axis (ground coordinates at the initial pose) whose components may be parameters (geometry.c, "Axes"):
     the file's components (not normalised), those at the last update, naxis of them parameters; axis_k the branch of
     MbsPerpendicular() at the file's values, kept at every p, from which the element builds the axis' normals if it
     does (normals); axis_row[i] how row i reads the axis */
  MbsValue   axis[3];
  PetscReal  axis_at[3];
  PetscInt   naxis, axis_k;
  PetscBool  normals;
  MbsAxisRow axis_row[6];
  /* cross: a second axis fixed in body b (a universal joint's, universal.c), its components and their values at the
     last update as axis's; the rows then read axis in body a and axis_b in body b, and naxis counts both's parameters */
  PetscBool cross;
  MbsValue  axis_b[3];
  PetscReal axis_b_at[3];
  /* a bushing's or maxwell's axes whose entries are parameters (bushing.c, "Frame parameters"): the file's nine entries
     (the axes as rows, ground coordinates at the initial pose), nframe of them parameters; at the last update their
     values frame_A, its polar factor frame_R (the axes the rows read) and frame_S = R^T A (rotation.c); frame_ok false
     while A(p) is no right-handed frame (R and S then kept); frame_first: the bushing coordinate of row 0 (0, or a
     bushing_force's or bushing_moment's own) */
  MbsValue  frame[9];
  PetscReal frame_A[9], frame_R[9], frame_S[9];
  PetscInt  nframe, frame_first;
  PetscBool frame_ok;
};

/* The state callbacks of an element with internal states, or NULL */
static inline const MbsElementStateType *MbsElementStates(const MbsElement *el)
{
  return el->nstate > 0 ? (const MbsElementStateType *)el->ops : NULL;
}

struct _MbsDescription {
  char              file[PETSC_MAX_PATH_LEN];
  PetscInt          nbody, nelement, nparam, nq, nc;
  MbsBody          *body;
  MbsElement       *element;
  MbsParameterInfo *param_info;          /* owned: names, units and descriptions are copies */
  MbsValue          gravity[3];          /* [m/s^2] */
  PetscInt          planar, planar_line; /* planar: the ground axis (0, 1, 2) normal to the plane of motion, -1: 3D; its line */
  PetscInt          output;              /* the sensor that is the model's output y */
  PetscReal         t0, tf, dt, dt_max;
  PetscBool         engine_order; /* an element follows the crank angle of speed */
  MbsSpeedProfile   speed;        /* the engine speed (section speed:, and the options of MbsSpeedProfileSetFromOptions) */
  PetscReal        *p;            /* the model's current parameter values, while it evaluates */
  PetscReal        *work;         /* 3 nq x nq + 4 nq scratch of the force elements, then nparam of the excitations' ds/dp */
  PetscInt          ns;           /* internal states of the elements (U's last block) */
  /* a view's support: the coordinates where the element's Jq and Jv can be non-zero (its rows' for row_forces), the
     only ones its loops over Jq, Jv need visit, in increasing order and whole slots (the 3 coordinates of a slot
     together, MbsBilinearMark(): MbsRowForces() runs over 3 x 3 blocks); NULL: every coordinate (model_described.c) */
  const PetscInt *support;
  PetscInt        nsupport;
  /* An element is evaluated on a view of the description (model_described.c): nq its bodies' coordinates alone, the
     bodies' offsets into them, q, v, F, Jq, Jv, Jp, dy/dq local; Jp's columns of the parameters of its value and
     harmonic fields, a history's scale and its laws' coefficients are the ones kept (ElementParameters), and its rows
     read only its bodies el->body */
};

/* The size of the view's support (MbsDescription.support) and its k-th coordinate */
static inline PetscInt MbsSupportSize(MbsDescription desc)
{
  return desc->support ? desc->nsupport : desc->nq;
}

static inline PetscInt MbsSupportAt(MbsDescription desc, PetscInt k)
{
  return desc->support ? desc->support[k] : k;
}

static inline PetscReal *MbsParameterScratch(MbsDescription desc)
{
  return desc->work + 3 * desc->nq * desc->nq + 4 * desc->nq;
}

/* Vector maps and bilinear scalars (kinematics.c) */
PETSC_INTERN PetscInt     MbsBodySlots(MbsDescription, PetscInt);
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
PETSC_INTERN PetscReal    MbsBilinearAddGradient(MbsDescription, const MbsBilinear *, const PetscReal[], PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBilinearAddHessian(MbsDescription, const MbsBilinear *, PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBilinearAddSlotHessian(MbsDescription, const MbsBilinear *, PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBilinearAddRateGradient(MbsDescription, const MbsBilinear *, const PetscReal[], PetscReal, PetscReal[], PetscInt);
PETSC_INTERN void         MbsBilinearMark(MbsDescription, const MbsBilinear *, PetscBool, PetscBool[]);
PETSC_INTERN void         MbsBodyPose(const MbsBody *, PetscReal[], PetscReal[]);
PETSC_INTERN PetscBool    MbsBodyPoseAt(const MbsBody *, const PetscReal[], PetscReal[], PetscReal[]);
PETSC_INTERN void         MbsBodyPoseDerivative(const MbsBody *, const PetscReal[], PetscInt, PetscReal[], PetscReal[]);
PETSC_INTERN void         MbsBodyJbar(const MbsBody *, const PetscReal[], PetscInt, PetscReal[9]);
PETSC_INTERN void         MbsMapInitial(MbsDescription, const MbsVectorMap *, PetscReal[3]);
PETSC_INTERN void         MbsPerpendicular(const PetscReal[3], PetscReal[3], PetscReal[3]);
PETSC_INTERN PetscInt     MbsPerpendicularBranch(const PetscReal[3]);
PETSC_INTERN void         MbsPerpendicularAt(const PetscReal[3], PetscInt, const PetscReal[3], PetscReal[2][3], PetscReal[2][3]);
PETSC_INTERN void         MbsRelativeDirection(MbsDescription, const MbsElement *, const PetscReal[3], PetscReal[3]);
PETSC_INTERN PetscBool    MbsPolarRotation(const PetscReal[9], PetscReal[9], PetscReal[9]);
PETSC_INTERN void         MbsPolarRotationDerivative(const PetscReal[9], const PetscReal[9], const PetscReal[9], PetscReal[9]);
PETSC_INTERN void         MbsJointPointRows(MbsDescription, MbsElement *);
PETSC_INTERN void         MbsJointAxisRows(MbsDescription, MbsElement *, const PetscReal[3]);
PETSC_INTERN void         MbsJointRotationRows(MbsDescription, MbsElement *);
PETSC_INTERN void         MbsJointLineRows(MbsDescription, MbsElement *, const PetscReal[3]);
PETSC_INTERN void         MbsRelativeAngleRows(MbsDescription, MbsElement *, const PetscReal[3]);
PETSC_INTERN PetscReal    MbsRelativeAngle(MbsDescription, const MbsElement *, const PetscReal[], PetscReal[], PetscReal[]);
PETSC_INTERN PetscReal    MbsRelativeAngleP(MbsDescription, const MbsElement *, PetscInt, const PetscReal[], PetscReal[]);
PETSC_INTERN void         MbsRelativeAngleMoved(MbsDescription, MbsElement *);

/* Reading the file (described_file.c); the element readers use these */
PETSC_INTERN PetscErrorCode MbsDescriptionRead(const char[], MbsDescription *);
PETSC_INTERN PetscErrorCode MbsDescriptionDestroy(MbsDescription *);
PETSC_INTERN PetscErrorCode MbsSensorRead(MbsYAMLReader *, void *, MbsElement *);
PETSC_INTERN PetscErrorCode MbsSensorReadFrame(MbsYAMLReader *, void *, PetscInt, PetscReal[3], PetscBool *);
PETSC_INTERN void           MbsSensorAlong(MbsDescription, const MbsElement *, const PetscReal[], const PetscReal[], PetscBool, PetscReal *, PetscReal[], PetscReal[]);
PETSC_INTERN void           MbsSensorAlongP(MbsDescription, const MbsElement *, const PetscReal[], const PetscReal[], PetscBool, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsYAMLReadEarlierElement(MbsYAMLReader *, void *, const char[], const MbsElement *, const MbsElement **);
PETSC_INTERN PetscErrorCode MbsYAMLReadBodies(MbsYAMLReader *, void *, MbsElement *);
PETSC_INTERN PetscErrorCode MbsYAMLReadBody(MbsYAMLReader *, void *, const char[], PetscBool, PetscInt *);
PETSC_INTERN PetscErrorCode MbsYAMLReadVector(MbsYAMLReader *, void *, const char[], PetscBool, PetscInt, PetscReal[], PetscBool *);
PETSC_INTERN PetscBool      MbsYAMLHasField(MbsYAMLReader *, void *, const char[]);
PETSC_INTERN PetscErrorCode MbsYAMLReadNumber(MbsYAMLReader *, void *, const char[], PetscReal *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsYAMLReadItems(MbsYAMLReader *, void *, const char[], PetscBool, PetscInt, void *[], PetscInt *);
PETSC_INTERN PetscErrorCode MbsYAMLReadItemValue(MbsYAMLReader *, void *, const char[], const char[], MbsValue *);
PETSC_INTERN PetscErrorCode MbsYAMLReadChoice(MbsYAMLReader *, void *, const char[], PetscInt, const char *const[], PetscInt *);
PETSC_INTERN PetscErrorCode MbsYAMLReadMapping(MbsYAMLReader *, void *, const char[], PetscInt, const char *const[], void **);
PETSC_INTERN PetscErrorCode MbsYAMLReadWords(MbsYAMLReader *, void *, const char[], PetscInt *, const char *[]);
PETSC_INTERN PetscErrorCode MbsYAMLReadRotationValues(MbsYAMLReader *, void *, const char[], const char[], MbsValue[9], PetscReal[9], PetscBool *);
PETSC_INTERN PetscErrorCode MbsYAMLReadUnitVector(MbsYAMLReader *, void *, const char[], PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadValues(MbsYAMLReader *, void *, const char[], const char[], PetscBool, PetscInt, MbsValue[], PetscInt *);
PETSC_INTERN PetscErrorCode MbsYAMLReadJointPoints(MbsYAMLReader *, void *, MbsElement *, PetscReal[2][3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadJointAxis(MbsYAMLReader *, void *, MbsElement *, PetscReal[2][3], PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadAxis(MbsYAMLReader *, void *, const char[], MbsElement *, PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadCrossAxes(MbsYAMLReader *, void *, MbsElement *, PetscReal[2][3]);
PETSC_INTERN PetscErrorCode MbsYAMLReadWorldPoint(MbsYAMLReader *, void *, PetscInt, PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsYAMLError(MbsYAMLReader *, void *, const char[], ...);
PETSC_INTERN MbsDescription MbsYAMLReaderDescription(MbsYAMLReader *);

/* Flexible bodies: their file (flexible_file.c), rows and forces (flexible.c) */
PETSC_INTERN PetscErrorCode MbsFlexibleReadFile(const char[], const char[], MbsFlexible *);
PETSC_INTERN PetscErrorCode MbsFlexibleDestroy(MbsFlexible **);
PETSC_INTERN void           MbsFlexibleRows(MbsDescription, PetscInt, MbsBilinear[]);
PETSC_INTERN void           MbsFlexibleForce(MbsDescription, PetscInt, const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);
PETSC_INTERN void           MbsFlexibleForceSecond(MbsDescription, PetscInt, PetscInt, PetscReal[], PetscInt);

/* Time laws of excitations and prescribed motions (force.c) */
PETSC_INTERN PetscErrorCode MbsTimeLawRead(MbsYAMLReader *, void *, const char[], MbsElement *);
PETSC_INTERN PetscReal      MbsTimeLaw(MbsDescription, const MbsElement *, PetscReal, PetscInt, PetscReal[]);
PETSC_INTERN PetscReal      MbsExcitationLaw(MbsDescription, const MbsElement *, PetscReal, PetscReal[]);

/* Engine-order laws and follower loads of any law (engine_order.c) */
PETSC_INTERN PetscErrorCode MbsEngineOrderRead(MbsYAMLReader *, void *, const char[], MbsElement *);
PETSC_INTERN PetscReal      MbsEngineOrderValue(MbsDescription, const MbsElement *, PetscReal, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsTorqueReadBodyAxis(MbsYAMLReader *, void *, MbsElement *, PetscReal[3]);
PETSC_INTERN PetscErrorCode MbsFollowerForce(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);
PETSC_INTERN PetscErrorCode MbsFollowerForceSecond(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, PetscReal[], PetscReal[], PetscInt, PetscReal[]);
PETSC_INTERN PetscErrorCode MbsFollowerTorque(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);
PETSC_INTERN PetscErrorCode MbsFollowerTorqueSecond(MbsDescription, const MbsElement *, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, PetscReal[], PetscReal[], PetscInt, PetscReal[]);

/* Points whose coordinates are parameters (geometry.c) */
PETSC_INTERN PetscBool MbsGeometryUpdate(MbsDescription, MbsElement *);
PETSC_INTERN PetscBool MbsGeometryFirst(const MbsElement *, PetscInt);
PETSC_INTERN PetscBool MbsGeometryPointDerivative(MbsDescription, const MbsElement *, PetscInt, PetscInt, MbsVectorMap *);
PETSC_INTERN PetscBool MbsGeometryDifferenceDerivative(MbsDescription, const MbsElement *, PetscInt, MbsVectorMap *);
PETSC_INTERN void      MbsGeometrySensorP(MbsDescription, const MbsElement *, const PetscReal[], PetscBool, const PetscReal[3], PetscReal[]);
PETSC_INTERN void      MbsElementPointDifference(MbsDescription, const MbsElement *, MbsVectorMap *);
PETSC_INTERN void      MbsJointPointsMoved(MbsDescription, MbsElement *);
PETSC_INTERN PetscBool MbsJointRowP(MbsDescription, const MbsElement *, PetscInt, PetscInt, MbsBilinear *);
PETSC_INTERN PetscBool MbsJointAxisParameter(const MbsElement *, PetscInt);
PETSC_INTERN PetscInt  MbsJointAxisFirst(const MbsElement *, PetscInt);
PETSC_INTERN void      MbsSensorAxisP(MbsDescription, const MbsElement *, const PetscReal[], const PetscReal[3], PetscReal[]);
PETSC_INTERN void      MbsJointAxisUnit(const MbsElement *, PetscInt, PetscReal[3], PetscReal[3]);
PETSC_INTERN PetscReal MbsJointAxisBranchDistance(MbsDescription, const MbsElement *);
PETSC_INTERN PetscBool MbsJointAxisRowMoves(const MbsElement *, PetscInt);

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

/*
  Nonlinear force laws (force_law.c): a stiffness or damping value of a force element (el->value[i]) may instead be a law
  el->law[i] of the coordinate's deflection x and rate x'. The force on the coordinate is g(x, x') = K(x) + D(x, x'),
  the stiffness law's plus the damping law's.
*/
#define MBS_MAX_LAW 16 /* coefficients of a polynomial, points of a table */

typedef enum {
  MBS_LAW_LINEAR,     /* el->value[i]: k x or d x' */
  MBS_LAW_POLYNOMIAL, /* K = sum_j c_j x^j, j = 1..n */
  MBS_LAW_TABLE,      /* K = the not-a-knot cubic spline through (x_j, c_j), linear beyond the ends */
  MBS_LAW_AMPLITUDE,  /* D = c_0 (1 + c_1 x^2) x' */
  MBS_LAW_FRICTION    /* D = c_0 x' + c_1 tanh(x' / c_2) */
} MbsForceLawType;

typedef struct _MbsForceLaw {
  MbsForceLawType type;
  PetscInt        n;
  MbsValue        c[MBS_MAX_LAW];                /* coefficients, or the table's forces */
  MbsValue        knot[MBS_MAX_LAW];             /* the table's deflections, increasing on their parameters' bounds */
  PetscBool       moves;                         /* a knot is a parameter: x, f, W and dM follow p (MbsForceLawsUpdate) */
  PetscReal       x[MBS_MAX_LAW];                /* the knots at the last update */
  PetscReal       f[MBS_MAX_LAW];                /* the forces at the last update */
  PetscReal       W[MBS_MAX_LAW * MBS_MAX_LAW];  /* the spline's second derivatives at x_j: M = W f (n x n, column-major) */
  PetscReal       dM[MBS_MAX_LAW * MBS_MAX_LAW]; /* dM/dx_k = (dW/dx_k) f in column k, for the knots that are parameters */
} MbsForceLaw;

/* g, dg/dx, dg/dx' of one coordinate, and dg/dp for the parameters it depends on */
typedef struct {
  PetscReal g, gx, gv;
  PetscInt  np;
  PetscInt  param[3 * MBS_MAX_LAW]; /* a table's forces and knots, a damping law's coefficients */
  PetscReal dgdp[3 * MBS_MAX_LAW];
} MbsLawForce;

PETSC_INTERN PetscErrorCode MbsForceLawsRead(MbsYAMLReader *, void *, const char[], PetscBool, const char[], const char[], PetscBool, PetscInt, MbsElement *, PetscInt, PetscInt *);
PETSC_INTERN void           MbsForceLawEval(MbsDescription, const MbsElement *, PetscInt, PetscInt, PetscReal, PetscReal, MbsLawForce *);
PETSC_INTERN PetscBool      MbsForceLawActive(const MbsElement *, PetscInt);
PETSC_INTERN void           MbsForceLawsUpdate(MbsDescription, MbsElement *);
PETSC_INTERN PetscBool      MbsForceLawKnot(const MbsElement *, PetscInt);
PETSC_INTERN void           MbsForceLawSecond(MbsDescription, const MbsElement *, PetscInt, PetscInt, PetscReal, PetscReal, PetscReal, PetscReal, PetscInt, PetscReal *, PetscReal *);
PETSC_INTERN void           MbsCoordinateForceSecond(MbsDescription, const MbsElement *, PetscInt, PetscInt, PetscReal, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], const PetscReal[], PetscInt, PetscReal[], PetscReal[], PetscInt, PetscReal[]);
PETSC_INTERN void           MbsCoordinateForceP(MbsDescription, const MbsElement *, PetscInt, PetscInt, PetscReal, const PetscReal[], const PetscReal[], PetscReal, const PetscReal[], PetscReal[]);
PETSC_INTERN void           MbsCoordinateForce(MbsDescription, const MbsElement *, PetscInt, PetscInt, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt);
PETSC_INTERN PetscInt       MbsRowForcesBatch(MbsDescription);
PETSC_INTERN void           MbsRowForces(MbsDescription, const MbsElement *, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], const PetscReal[], const PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscReal[], PetscInt, PetscReal[]);
MBS_ELEMENT_TYPE(RelativeDisplacement);
MBS_ELEMENT_TYPE(BushingForce);
MBS_ELEMENT_TYPE(BushingMoment);
MBS_ELEMENT_TYPE(Maxwell);
PETSC_INTERN PetscErrorCode MbsBushingTranslationRows(MbsYAMLReader *, void *, MbsElement *, MbsVectorMap[3], MbsVectorMap[3]);
PETSC_INTERN void           MbsBushingRotationRows(MbsElement *, const MbsVectorMap[3], const MbsVectorMap[3]);
PETSC_INTERN void           MbsBushingRows(MbsDescription, MbsElement *);
PETSC_INTERN PetscBool      MbsBushingRowP(MbsDescription, const MbsElement *, PetscInt, PetscInt, const PetscReal[], PetscReal *, PetscReal[], PetscReal[]);
#define MBS_MAX_BUSHING_PARAM (MBS_MAX_GEOMETRY + 9) /* a bushing's point coordinates and frame entries */
PETSC_INTERN PetscInt MbsBushingParameters(const MbsElement *, PetscInt[]);
MBS_ELEMENT_TYPE(Prescribed);
MBS_ELEMENT_TYPE(ReactionForce);
MBS_ELEMENT_TYPE(Torque);
