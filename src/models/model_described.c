/*
  Model described: any multibody system of a model file (-model_file FILE; elements/described_file.c), in natural
  coordinates (seed 003, section 3: constant mass matrix, constraints at most quadratic, no velocity-quadratic
  terms), assembled element by element from the library of elements/.

  Coordinates q: per rigid body (r, u, v, w), 12, per point mass r, 3, per flexible body (r, u, v, w, gamma_jk) of
  elements/flexible.c, 3 (4 + 3 nmode). Mass matrix M = blockdiag(m I3, Jbar (x) I3), Jbar = int x x^T dm = tr(I)/2 1 - I,
  constant in time; m and the entries of I may be parameters, M(p) linear in each, so dF/dp gets dM/dp v'
  (DescribedJacobianP); a flexible body's is slot_mass (x) I3, singular, with the modal stiffness and damping among the
  forces and 8 rows per mode among the body's constraints. Constraints Phi(q) = 0: the six orthonormality conditions of each rigid
  body's axes (u.u = v.v = w.w = 1, u.v = v.w = w.u = 0) and the rows of the joints, each a bilinear scalar
  (elementimpl.h), so Phi_q is linear in q and every Phi_qq constant. As engine4, the index-3 DAE is integrated in the
  stabilised index-2 form of Gear, Gupta and Leimkuhler (GGL), U = (q, v, lambda, mu, s), n = 2 nq + 2 nc + ns, s the
  internal first-order states of elements such as maxwell (none in most models: ns = 0):

    q' - v + Phi_q^T mu      = 0      (nq)   mu = 0 on the exact solution; it keeps Phi(q) = 0 without drift
    M v' - f + Phi_q^T lambda = 0     (nq)   f = gravity + force elements (f depends on q, v, t, p)
    Phi_q v                  = 0      (nc)
    Phi(q)                   = 0      (nc)
    R(q, v, s, s')           = 0      (ns)   the state rows of the elements (AddStates), affine in s'; f depends on s

  Jacobian: d/dq of Phi_q^T mu is sum_r mu_r Phi_r,qq; d/dq of Phi_q v is (Phi_r,qq v)^T per row; the force elements
  give -df/dq, -df/dv, -df/dp. Dense n x n for this slice; the assembly loops over bodies, rows and elements, so a
  sparse (AIJ) assembly later changes only where the entries go.

  Before any solve the model is checked (STYLE item 17): the file reader refuses unknown bodies, parameters, fields
  and element types, joints of a body to itself, inertia tensors of no body, orientations that are no rotation; here
  the initial pose and velocity must satisfy every constraint, and the constraint Jacobian must have full rank at the
  initial pose (no redundant joint), each fault named by entity and line.

  Linearisation (eigen): about the initial pose at rest, lambda of the static equilibrium (Phi_q^T lambda = f, least
  squares), and the free motions N, an orthonormal basis of the null space of Phi_q (SVD):
  M_r = N^T M N, C_r = -N^T f_v N, K_r = N^T (-f_q + sum_r lambda_r Phi_r,qq) N, nq of the model = nq - nc, the
  internal states held at s(t0); with internal states, eigen and the frequency response (core/frf.c) use the first-order
  form of DescribedLinearizeFirstOrder. The frequency response's derivative by a parameter of a model whose joints move
  with p continues the pose, N and the force rows' Jacobian along it (DescribedLinearizeAlong): N, an SVD basis, is no
  smooth function of p.

  Planar models (a file's planar: x|y|z, -model_planar): every body moves in the plane normal to ground axis n and turns
  about n only, so the components along n of r, u, v, w and the whole axis along n keep their initial values: those
  coordinates are pinned (PlanarSetUp()), 6 of a rigid body's 12, 1 of a point mass's 3, and a row that they make
  constant (gradient and Hessian zero on the free coordinates) is dropped, its constant checked to be 0. The model's U
  holds the free coordinates and kept rows; every evaluation runs on the description's 3D U_full with the pinned
  coordinates at their values, their velocities and accelerations and the dropped rows' lambda, mu zero (Full()), and
  keeps the model's rows and columns (AddReduced(), the sparse matrices through Sink.map; the element library and the
  views are those of 3D). The out-of-plane components of forces and moments act on pinned coordinates only and drop
  out: the plane takes them. The mass restricted to the free coordinates is positive definite (SolveMassPlanar()); the
  index-1 systems get unit rows and columns of the pinned coordinates and dropped rows (AugmentedMatrix()); N spans
  the null space of the kept rows on the free coordinates (ModelConstraintJacobian()). A sensor that reads only pinned
  coordinates and a force with input: true that acts on them only are refused before any solve (PlanarCheckReads()):
  the plane would hold their channel constant and take their input.
*/
#include "models/elements/elementimpl.h"

#define MBS_VIEW_BODIES 2 /* an element acts on at most two bodies */

/*
  The point (t, U, p, and with rate U') at which a cache of the model was filled (key: t, U, p, U'; set false: empty).
  A cache serves only the same values of all it read: what else it reads of the description changes only in setup and
  with the options (DescribedSetFromOptions() empties every cache), or is left out of it (the excitations and the
  internal states' rows of the residual, DescribedResidual()), or empties it (an input that comes or goes takes the
  derivatives of its force's law out of dF/dp or puts them back, Description(); the input's and the controller's
  F(t) - u of a force with input: true, which dF/dp's columns of its point read, SparseKeptFind()).
*/
typedef struct {
  PetscReal *key;
  PetscBool  set, rate;
} PointKey;

/*
  A sparse matrix of the model: the Jacobian, or dF/dp (wrt_p); slot: the place in its values of each entry an assembly
  writes. The Jacobian's assembly also keeps its dF/dU (shift 0) in values0 (only for a 3D model with accelerometers), with
  the CSR ia, ja of its places and its point[0]: the accelerometers' b^T dR_v/dU at that state reads it (an adjoint step
  of CN assembles the Jacobian at the node where the cost's density is asked for next). dF/dp keeps the values (nnz
  each) of its last two points in cached[k] at point[k] with the control sizes they read (SparseKeptFind()), next the
  one a new point takes: an adjoint step of CN asks for it at both ends, so at every node twice, at U' = 0 and at the
  step's difference quotient, on which it depends only through the mass and inertia parameters and the internal states
  (point[].rate, DescribedJacobianPCreate()); and the accelerometers' dy/dp at a node, which the step asks for before
  either of its dF/dp, fills the node's (ChannelsAssembleP()) once dF/dp has been read as a matrix (read): a
  Runge-Kutta gradient's adjoint step takes the dense dF/dp and would never read what its stages filled.
*/
typedef struct {
  PetscBool  wrt_p;
  PetscInt  *slot, nslot, nnz;
  PetscInt  *ia, *ja;
  PetscReal *values0, *cached[2];
  PointKey   point[2];
  PetscReal  control_size[2][MBS_MAX_CONTROL];
  PetscInt   next;
  PetscBool  read;
} SparseForm;

/*
  The linearisation continued along p_j (DescribedLinearizeAlong()): each part X at p_j = p0 and its derivative dX/dp_j,
  the linearisation at p taking X + (p_j - p0) dX: the start pose q0 (nq), the free motions N (nq x m), the force rows'
  Jacobian at rest CK = (-f_v, -f_q + sum_r lambda_r Phi_r,qq) (nq x 2 nq) and, with internal states, the blocks W0, W1
  of the first-order form (2 (nq + ns) x (2 nq + ns), DescribedLinearizeFirstOrder()); one allocation from q
*/
typedef struct {
  PetscInt  j;
  PetscReal p0, *q, *dq, *N, *dN, *CK, *dCK, *W, *dW;
} Along;

typedef struct {
  MbsDescription      desc;
  PetscInt            nbody_row;
  MbsBilinear        *body_row;  /* 6 per rigid or flexible body (orthonormal axes), 8 per mode of a flexible one */
  const MbsBilinear **row;       /* the nc constraint rows */
  PetscInt           *row_owner; /* element index, or -1 - body index */
  PetscInt           *sensor;    /* the element of each output channel: every sensor, in the file's order */
  PetscBool           flexible;  /* a flexible body: M is singular (flexible.c), positive definite only on the free motions */
  PetscBool           augmented; /* accelerometers from (q, v, t) by AugmentedAccelerations(): a flexible body or -accelerations_augmented */
  /* the description as one element (or body) sees it: its bodies' coordinates alone, numbered from 0 (View()) */
  struct _MbsDescription view;
  MbsBody               *view_body;               /* a copy of the bodies whose offsets View() sets */
  PetscBool              view_stale;              /* the description changed (setup, options): Description() copies it */
  PetscInt               nlocal;                  /* the most coordinates of one view */
  PetscInt              *global;                  /* the model's coordinate of each of the view's */
  PetscReal             *local;                   /* scratch on the view's coordinates: 7 vectors, 3 nlocal^2 blocks, nlocal x np */
  PetscInt              *index;                   /* 4 nlocal: rows and columns of a block, and of its part (SinkAddSupport()) */
  SparseForm             jacobian, jacobian_p;    /* the sparse Jacobian and dF/dp of the identified parameters (SparseCreate) */
  PetscReal             *residual_u;              /* the residual's part of (t, U) alone (DescribedResidual()), */
  PointKey               residual_point;          /* at this point */
  PetscReal             *dense_u, *dense_udot;    /* the dense Jacobian's dF/dU and dF/dU' (DescribedJacobian()), */
  PointKey               dense_point;             /* at this point */
  PetscInt              *column;                  /* the column of each parameter in dF/dp's, -1: not identified */
  PetscInt              *param_start, *param;     /* the parameters element e's Jp may touch: param[param_start[e] .. param_start[e + 1]) */
  PetscInt              *support_start, *support; /* the coordinates of its view where element e's Jq, Jv can be non-zero: support[support_start[e] ..) */
  PetscReal             *state_local;             /* scratch of a state element (StateEvaluate()): its s, s', block and a part of it */
  PetscReal             *channel_work;            /* DescribedChannels()'s scratch (ChannelWorkGet()), NULL until its first call */
  PetscBool             *channel_used;
  PetscInt              *channel_pivots;
  PetscReal             *free_motions;   /* N of FreeMotions(), once computed */
  PetscReal             *free_motions_p; /* the parameters it was computed at (compared where they move Phi_q at the start) */
  PetscBool              rheonomic;      /* a row moves with time (a prescribed motion, elements/prescribed.c) */
  PetscBool              frame;          /* a bushing's axes hold parameters (bushing.c): -cost frf refuses them (DescribedLinearizeAlong()); their states' start moves with p (state_geometry) */
  PetscBool              joint_geometry; /* a joint's point or length is a parameter: its rows, their Hessians and N move with p */
  PetscBool              moves_pose;     /* one that moves its rows at the file's pose (not a point in ground coordinates): StartPose */
  PetscBool              state_geometry; /* a point of an element with states is a parameter: their start s0 moves with p */
  PetscBool              start_p;        /* a body's initial position, velocity, angular velocity or orientation is a parameter */
  /* the linearisation continued along a parameter (DescribedLinearizeAlong()); NULL: not */
  Along      *along;
  MbsElement *input_element; /* the (first) force with input: true, which a nodal input drives */
  /* every force with input: true, each driven by its controller in the loop (model->control_input) */
  MbsElement *control_element[MBS_MAX_CONTROL];
  /* each constraint row compiled (RowPatternsSetUp()), rows r's from *_start[r]: the coordinates where Phi_q can be
     non-zero (grad_i) and its constant part g0 there, Phi at q = 0 (value0), the entries of its Hessian (constant:
     row hess_i, column hess_j, and hess_at, the place of hess_i in the row's grad list) and the places in the grad list
     where d(Phi_q v)/dq = H v can be non-zero (rate_at); all coordinates the model's; the values follow a joint's point (RowCompile()). Phi = value0 + g0.q + q^T H q / 2
     and Phi_q = g0 + H q exactly (rows at most quadratic), each from its few non-zeros */
  PetscInt  *hess_start, *hess_i, *hess_j, *hess_at, *grad_start, *grad_i, *rate_start, *rate_at;
  PetscReal *hess, *grad0, *value0;
  PetscInt  *entry_row, *entry_col;             /* scratch of SinkAddEntries() for the largest of these lists */
  PetscReal *entry_value, *row_grad, *row_rate; /* and of RowEvaluate() */
  /* a planar model (PlanarSetUp()): the model's U = (q, v, lambda, mu, s) holds the free coordinates and the kept rows of
     the description's 3D one, U_full (n_full), in which every evaluation works; reduce[i]: the model's index of U_full's
     entry i, -1 for a pinned coordinate (its velocity and acceleration 0) and a dropped row's multipliers. In 3D the
     identity, n_full = n. free (nq_free) and kept (nc_kept): the 3D indices of the free coordinates and kept rows */
  PetscInt   planar;    /* the ground axis normal to the plane, -1: 3D */
  char       plane[64]; /* what set it, for messages: "planar: z, line 3" (the file) or "-model_planar z" */
  PetscInt   n_full, nq_free, nc_kept, *reduce, *free, *kept;
  PetscReal *pinned;   /* U_full at the pinned coordinates' values (the initial pose), zero elsewhere */
  PetscReal *full[4];  /* scratch of n_full each: the model's arguments and results in 3D */
  PetscReal *full_jac; /* scratch of n_full x max(n_full, np): a dense matrix in 3D */
  PetscReal *row_full; /* scratch of the 3D nq: one row's gradient */
} Described;

/*
  Where an element's local contributions go: a dense array (leading dimension ld); an AIJ matrix by MatSetValues
  (values column by column: the preallocator); the value array of the AIJ, where entry c of an assembly adds into
  values[slot[c]] (every assembly writes the same entries in the same order, so the places found once serve every
  state: with record, slot[c] is found in the CSR ia, ja instead, or with slot NULL only counted); or, with weight
  (length n), the product weight^T J added into product: alone (SINK_PRODUCT), or besides the value array of found
  places (SINK_SLOTS with product, which adds each block to both). body_used (may be NULL) marks the bodies whose rows a
  product alone reads: an element on none of them adds nothing to it and is skipped.
*/
typedef enum {
  SINK_DENSE,
  SINK_MAT,
  SINK_SLOTS,
  SINK_PRODUCT
} SinkType;

typedef struct {
  SinkType         type;
  PetscReal       *dense;
  PetscReal       *dense_shifted; /* DENSE (may be NULL): takes what scales with the shift (shifted set) instead of dense */
  PetscInt         ld;
  Mat              mat;
  PetscScalar     *values;
  PetscScalar     *values0; /* SLOTS: also takes what does not depend on the shift (shifted unset) */
  PetscBool        shifted;
  PetscInt        *slot, cursor;
  PetscBool        record;
  const PetscInt  *ia, *ja;
  const PetscReal *weight;
  PetscReal       *product;
  const PetscBool *body_used;
  const PetscInt  *column; /* MAT and SLOTS: the matrix's column of each parameter, -1: none (dF/dp of some only) */
  const PetscInt  *map;    /* MAT and SLOTS (may be NULL): the matrix's row (and, without column, column) of each of U_full's, -1: none (planar) */
} Sink;

/* Whether the sink is the value array of an assembly of every state with its places found (SINK_SLOTS): its entries
   add into their places, and into values0 too where that takes them */
static PetscBool SinkSlotsFound(const Sink *sink)
{
  return (PetscBool)(sink->type == SINK_SLOTS && !sink->record && sink->slot);
}

/* The place of (row, col) in the CSR ia, ja */
static PetscErrorCode SinkFind(Sink *sink, PetscInt row, PetscInt col, PetscInt *place)
{
  PetscInt lo = sink->ia[row], hi = sink->ia[row + 1];

  PetscFunctionBeginUser;
  while (hi - lo > 1) {
    PetscInt mid = (lo + hi) / 2;

    if (sink->ja[mid] <= col) lo = mid;
    else hi = mid;
  }
  PetscCheck(lo < sink->ia[row + 1] && sink->ja[lo] == col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the Jacobian is not in its preallocation", row, col);
  *place = lo;
  PetscFunctionReturn(0);
}

/* Entry (row, col) of the model into a sink that is not a product; a column of no parameter (column[col] < 0) into none,
   nor a row or column that the map drops */
static PetscErrorCode SinkAddEntry(Sink *sink, PetscInt row, PetscInt col, PetscReal value)
{
  PetscInt *slot = sink->slot ? &sink->slot[sink->cursor] : NULL, column = sink->column ? sink->column[col] : sink->map ? sink->map[col] : col;

  PetscFunctionBeginUser;
  if (sink->map && (sink->type == SINK_MAT || (sink->type == SINK_SLOTS && sink->record))) { /* found places need no map */
    row    = sink->map[row];
    column = row < 0 ? -1 : column;
  }
  switch (sink->type) {
  case SINK_MAT:
    if (column >= 0) PetscCall(MatSetValue(sink->mat, row, column, value, ADD_VALUES));
    break;
  case SINK_DENSE:
    (sink->shifted && sink->dense_shifted ? sink->dense_shifted : sink->dense)[row + col * sink->ld] += value;
    break;
  case SINK_SLOTS:
    sink->cursor++;
    if (!sink->record && *slot >= 0) sink->values[*slot] += value;
    if (!sink->record && *slot >= 0 && sink->values0 && !sink->shifted) sink->values0[*slot] += value;
    else if (sink->record && slot && column < 0) *slot = -1;
    else if (sink->record && slot) PetscCall(SinkFind(sink, row, column, slot));
    break;
  case SINK_PRODUCT:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product sums whole columns, not entries");
  }
  PetscFunctionReturn(0);
}

/* weight^T block into product at cols, block m x k at rows (SinkAddMasked()) */
static void SinkAddProduct(Sink *sink, PetscInt m, const PetscInt rows[], PetscInt k, const PetscInt cols[], const PetscReal block[])
{
  for (PetscInt j = 0; j < k; j++) {
    PetscReal sum = 0;

    for (PetscInt i = 0; i < m; i++) sum += sink->weight[rows[i]] * block[i + j * m];
    sink->product[cols[j]] += sum;
  }
}

/*
  block (m x k, column-major, leading dimension m) into rows x cols of the sink; with mask (same layout, may be NULL)
  only the entries where mask is not zero. A mask is a constant of the model (a Hessian of constraint rows, the mass
  matrix), so every assembly skips the same entries: the sparse matrices hold no place for what is zero whatever the
  state, and KLU's factors no fill from it. A dense sink takes the whole block, so that the sparse Jacobian's test
  against it (CompareSparse) sees a masked entry that is not zero.
*/
static PetscErrorCode SinkAddMasked(Sink *sink, PetscInt m, const PetscInt rows[], PetscInt k, const PetscInt cols[], const PetscReal block[], const PetscReal mask[])
{
  PetscFunctionBeginUser;
  if (sink->product) SinkAddProduct(sink, m, rows, k, cols, block); /* the whole block, as a product alone */
  if (sink->type == SINK_PRODUCT) PetscFunctionReturn(0);
  if (SinkSlotsFound(sink)) { /* as SinkAddEntry() would, without its per-entry dispatch (the elements' blocks) */
    PetscScalar *values0 = sink->values0 && !sink->shifted ? sink->values0 : NULL;

    for (PetscInt c = 0; c < m * k; c++) {
      PetscInt slot;

      if (mask && mask[c] == 0) continue;
      slot = sink->slot[sink->cursor++];
      if (slot < 0) continue;
      sink->values[slot] += block[c];
      if (values0) values0[slot] += block[c];
    }
  } else {
    for (PetscInt j = 0; j < k; j++)
      for (PetscInt i = 0; i < m; i++)
        if (!mask || mask[i + j * m] != 0 || sink->type == SINK_DENSE) PetscCall(SinkAddEntry(sink, rows[i], cols[j], block[i + j * m]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SinkAdd(Sink *sink, PetscInt m, const PetscInt rows[], PetscInt k, const PetscInt cols[], const PetscReal block[])
{
  PetscFunctionBeginUser;
  PetscCall(SinkAddMasked(sink, m, rows, k, cols, block, NULL));
  PetscFunctionReturn(0);
}

/*
  count entries (row[c], col[c], value[c]) into the sink, in the order and with the effect of SinkAddMasked() on the
  block they are the non-zeros of the mask of (column by column): a product sums each column's entries before adding
*/
static PetscErrorCode SinkAddEntries(Sink *sink, PetscInt count, const PetscInt row[], const PetscInt col[], const PetscReal value[])
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < count && sink->type != SINK_PRODUCT; c++) PetscCall(SinkAddEntry(sink, row[c], col[c], value[c]));
  for (PetscInt c = 0; c < count && sink->product; c++) {
    PetscReal sum = 0;

    for (; c < count; c++) {
      sum += sink->weight[row[c]] * value[c];
      if (c + 1 == count || col[c + 1] != col[c]) break;
    }
    sink->product[col[c]] += sum;
  }
  PetscFunctionReturn(0);
}

/* Whether one of the bodies b[0..nb) is marked in used (NULL: all are) */
static PetscBool Marked(const PetscBool used[], PetscInt nb, const PetscInt b[])
{
  if (!used) return PETSC_TRUE;
  for (PetscInt k = 0; k < nb; k++)
    if (used[b[k]]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Whether an entity on bodies b[0..nb) adds anything the sink (may be NULL) takes */
static PetscBool SinkWants(const Sink *sink, PetscInt nb, const PetscInt b[])
{
  return (PetscBool)(sink && Marked(sink->body_used, nb, b));
}

/* The coordinates of body b: 3 per slot (12 for a rigid body, 3 (4 + 3 nmode) for a flexible one) */
static PetscInt BodySize(MbsDescription desc, PetscInt b)
{
  return 3 * MbsBodySlots(desc, b);
}

static PetscErrorCode AugmentedMatrix(MbsModel, const PetscReal[], PetscReal[], PetscReal[]);
static void           AugmentedSolve(Described *, PetscInt, const PetscReal[], const PetscInt[], PetscInt, PetscReal[]);
static void           RowCompile(Described *, PetscInt);
static PetscErrorCode OwnerName(MbsModel, PetscInt, char[], size_t);

static PetscInt NQ(MbsModel model)
{
  return ((Described *)model->data)->desc->nq;
}

static PetscInt NC(MbsModel model)
{
  return ((Described *)model->data)->desc->nc;
}

/* The size of U_full, the description's 3D state (the model's n unless it is planar) */
static PetscInt NFull(MbsModel model)
{
  return ((Described *)model->data)->n_full;
}

/* The model's U (n) as U_full in scratch k: the pinned coordinates at their values, their velocities and the dropped
   rows' multipliers zero; a rate (U', a tangent) zero at all of those. In 3D U itself. */
static const PetscReal *Full(Described *d, const PetscReal U[], PetscBool rate, PetscInt k)
{
  if (d->planar < 0 || !U) return U;
  for (PetscInt i = 0; i < d->n_full; i++) d->full[k][i] = d->reduce[i] >= 0 ? U[d->reduce[i]] : rate ? 0 : d->pinned[i];
  return d->full[k];
}

/* The model's rows of the ncol columns of x (n_full x ncol), added into out (n x ncol) */
static void AddReduced(Described *d, PetscInt n, PetscInt ncol, const PetscReal x[], PetscReal out[])
{
  for (PetscInt c = 0; c < ncol; c++)
    for (PetscInt i = 0; i < d->n_full; i++)
      if (d->reduce[i] >= 0) out[d->reduce[i] + c * n] += x[i + c * d->n_full];
}

/* Whether constraint row r is dropped: constant once the coordinates are pinned (planar) */
static PetscBool RowDropped(Described *d, PetscInt r)
{
  return (PetscBool)(d->planar >= 0 && d->reduce[2 * d->desc->nq + r] < 0);
}

/* The model's description at its current parameters; its view follows it: the parameters at every call, the other
   fields (copied whole: some 4 kB with the file's name) after setup and options (the engine speed) */
static MbsDescription Description(MbsModel model)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = d->desc;

  desc->p = model->p;
  for (PetscInt e = 0; e < desc->nelement; e++) {                                                                        /* points, axes and a table's knots that are parameters */
    if (MbsGeometryUpdate(desc, &desc->element[e]) && desc->element[e].ops->kind == MBS_ELEMENT_CONSTRAINT && d->value0) /* the rows are compiled */
      for (PetscInt i = 0; i < desc->element[e].nrow; i++) RowCompile(d, desc->element[e].first_row + i);
    MbsForceLawsUpdate(desc, &desc->element[e]);
  }
  if (d->input_element) {
    const MbsInput *input = model->input.type != MBS_INPUT_MODEL ? &model->input : NULL;

    if (input != d->input_element->input) d->jacobian_p.point[0].set = d->jacobian_p.point[1].set = PETSC_FALSE; /* dF/dp has its law's derivatives only without an input */
    d->input_element->input = input;
  }
  for (PetscInt k = 0; k < model->ncontrol; k++) d->control_element[k]->control = model->control_force[k];
  if (d->view_body && d->view_stale) {
    PetscReal *work = d->view.work;

    d->view       = *desc;
    d->view.body  = d->view_body;
    d->view.work  = work;
    d->view_stale = PETSC_FALSE;
  }
  d->view.p = desc->p;
  return desc;
}

static PetscErrorCode PointKeyCreate(MbsModel model, PointKey *point)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(1 + 2 * NFull(model) + model->np, &point->key));
  point->set = point->rate = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Whether the cache of point was filled at (t, U, U') and the model's parameters (U' read only with point->rate) */
static PetscErrorCode PointKeyHolds(MbsModel model, const PointKey *point, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscBool *holds)
{
  PetscInt n = NFull(model), np = model->np;

  PetscFunctionBeginUser;
  *holds = (PetscBool)(point->set && point->key[0] == t);
  if (*holds) PetscCall(PetscArraycmp(point->key + 1, U, n, holds));
  if (*holds) PetscCall(PetscArraycmp(point->key + 1 + n, model->p, np, holds));
  if (*holds && point->rate) PetscCall(PetscArraycmp(point->key + 1 + n + np, Udot, n, holds));
  PetscFunctionReturn(0);
}

static PetscErrorCode PointKeySet(MbsModel model, PointKey *point, PetscReal t, const PetscReal U[], const PetscReal Udot[])
{
  PetscInt n = NFull(model), np = model->np;

  PetscFunctionBeginUser;
  point->key[0] = t;
  PetscCall(PetscArraycpy(point->key + 1, U, n));
  PetscCall(PetscArraycpy(point->key + 1 + n, model->p, np));
  if (point->rate) PetscCall(PetscArraycpy(point->key + 1 + n + np, Udot, n));
  point->set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* np scratch of the model (the part of d->local that holds nlocal x np): MbsParameterScratch() is a view's, placed
   after 3 nq^2 + 4 nq of the view's nq, and lies beyond desc->work for the model's nq */
static PetscReal *ParameterScratch(Described *d)
{
  return d->local + 7 * d->nlocal + 3 * d->nlocal * d->nlocal;
}

/* The bodies (not the ground) element el acts on */
static PetscInt ElementBodies(const MbsElement *el, PetscInt b[MBS_VIEW_BODIES])
{
  PetscInt nb = 0;

  for (PetscInt k = 0; k < 2; k++)
    if (el->body[k] != MBS_GROUND) b[nb++] = el->body[k];
  return nb;
}

/* The bodies of constraint row r: its body's, or its joint's */
static PetscInt RowBodies(Described *d, PetscInt r, PetscInt b[MBS_VIEW_BODIES])
{
  if (d->row_owner[r] < 0) {
    b[0] = -1 - d->row_owner[r];
    return 1;
  }
  return ElementBodies(&d->desc->element[d->row_owner[r]], b);
}

/* d^(order)(t) of constraint row r (0 for a row that holds for ever: Phi(q) = 0), its derivatives by the parameters
   into dddp (np, set; may be NULL) */
static PetscReal RowMotion(Described *d, PetscInt r, PetscReal t, PetscInt order, PetscReal dddp[])
{
  const MbsElement *el = d->row_owner[r] >= 0 ? &d->desc->element[d->row_owner[r]] : NULL;

  if (el && el->motion) return el->motion(d->desc, el, t, order, dddp);
  for (PetscInt j = 0; j < d->desc->nparam && dddp; j++) dddp[j] = 0;
  return 0;
}

/* dPhi_r/dp_j of constraint row r (a joint's row that follows its points or length: its type's row_p, or MbsJointRowP)
   into drow, on desc or a view of the row's bodies; false when p_j does not move the row */
static PetscBool RowP(Described *d, MbsDescription desc, PetscInt r, PetscInt j, MbsBilinear *drow)
{
  const MbsElement *el = d->row_owner[r] >= 0 ? &d->desc->element[d->row_owner[r]] : NULL;

  drow->nproduct = 0;
  if (!el || el->ops->kind != MBS_ELEMENT_CONSTRAINT) return PETSC_FALSE;
  return (el->row_p ? el->row_p : MbsJointRowP)(desc, el, r - el->first_row, j, drow);
}

/* The parameters constraint row r's element may depend on, d->param[*k0 .. *k1) (none for a body's row) */
static void RowParameters(Described *d, PetscInt r, PetscInt *k0, PetscInt *k1)
{
  PetscInt e = d->row_owner[r];

  *k0 = e >= 0 ? d->param_start[e] : 0;
  *k1 = e >= 0 ? d->param_start[e + 1] : 0;
}

/*
  The description as an entity on bodies b[0..nb) sees it: nq their coordinates, numbered from 0 in the order of b
  (d->global maps them back), so an element's callbacks work on at most 24 coordinates whatever the model's size;
  q, v (may be NULL) gathered into the view's scratch lq, lv.
*/
static MbsDescription View(Described *d, PetscInt nb, const PetscInt b[], const PetscReal q[], const PetscReal v[], PetscReal **lq, PetscReal **lv)
{
  MbsDescription view = &d->view;

  view->nq      = 0;
  view->support = NULL;
  for (PetscInt k = 0; k < nb; k++) {
    PetscInt size = BodySize(d->desc, b[k]);

    d->view_body[b[k]].offset = view->nq;
    for (PetscInt i = 0; i < size; i++) d->global[view->nq + i] = d->desc->body[b[k]].offset + i;
    view->nq += size;
  }
  *lq = d->local;
  *lv = d->local + d->nlocal;
  for (PetscInt i = 0; i < view->nq; i++) {
    (*lq)[i] = q ? q[d->global[i]] : 0;
    (*lv)[i] = v ? v[d->global[i]] : 0;
  }
  return view;
}

/* The view's indices shifted by offset: the rows or columns of its coordinates in a block of U */
static PetscInt *Shifted(Described *d, PetscInt nq, PetscInt offset, PetscInt out[])
{
  for (PetscInt i = 0; i < nq; i++) out[i] = d->global[i] + offset;
  return out;
}

/* out (9) += (A (x) I3) a (9): a rigid body's rotation rows of a 3 x 3 inertia A (Jbar or dJbar/dp) times a */
static void AddInertiaTimes(const PetscReal A[9], const PetscReal a[9], PetscReal out[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt k = 0; k < 3; k++) out[3 * i + k] += A[3 * i + j] * a[3 * j + k];
}

/* F_v += M a (a: accelerations, nq) */
static void AddMassTimes(MbsDescription desc, const PetscReal p[], const PetscReal a[], PetscReal F[])
{
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;
    PetscReal      m    = MbsValueOf(&body->mass, p), Jbar[9];

    if (body->flexible) { /* slot_mass (x) I3 */
      PetscInt ns = body->flexible->nslot;

      for (PetscInt s = 0; s < ns; s++)
        for (PetscInt t = 0; t < ns; t++)
          for (PetscInt k = 0; k < 3; k++) F[o + 3 * s + k] += body->flexible->slot_mass[s * ns + t] * a[o + 3 * t + k];
      continue;
    }
    for (PetscInt k = 0; k < 3; k++) F[o + k] += m * a[o + k];
    if (!body->rigid) continue;
    MbsBodyJbar(body, p, -1, Jbar);
    AddInertiaTimes(Jbar, a + o + 3, F + o + 3);
  }
}

/* out += dM/dp_j a (nq): M(p) is linear in each mass and moment of inertia (a flexible body's slot masses are none) */
static void AddMassDerivativeTimes(MbsDescription desc, PetscInt j, const PetscReal a[], PetscReal out[])
{
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;

    if (body->flexible) continue;
    for (PetscInt k = 0; k < 3 && body->mass.param == j; k++) out[o + k] += a[o + k];
    for (PetscInt moment = 0; moment < 6 && body->rigid; moment++) {
      PetscReal dJ[9];

      if (body->moment[moment].param < 0 || body->moment[moment].param != j) continue;
      MbsBodyJbar(body, NULL, moment, dJ);
      AddInertiaTimes(dJ, a + o + 3, out + o + 3);
    }
  }
}

static PetscErrorCode SolveMassPlanar(Described *, const PetscReal[], PetscReal[]);

/* x := M^-1 x (nq) body by body: M = blockdiag(m I3, Jbar (x) I3), no flexible body (its M is singular); planar: on the
   free coordinates (SolveMassPlanar()) */
static PetscErrorCode SolveMass(Described *d, const PetscReal p[], PetscReal x[])
{
  MbsDescription desc = d->desc;

  PetscFunctionBeginUser;
  if (d->planar >= 0) {
    PetscCall(SolveMassPlanar(d, p, x));
    PetscFunctionReturn(0);
  }
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody  *body = &desc->body[b];
    const PetscReal m    = MbsValueOf(&body->mass, p);
    PetscReal      *xb   = x + body->offset, inverse[9], det, J[9];

    MbsBodyJbar(body, p, -1, J);
    PetscCheck(m > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model file '%s': body '%s' has mass %g, so its acceleration is undefined", desc->file, body->name, (double)m);
    for (PetscInt k = 0; k < 3; k++) xb[k] /= m;
    if (!body->rigid) continue;
    inverse[0] = J[4] * J[8] - J[5] * J[7];
    inverse[1] = J[2] * J[7] - J[1] * J[8];
    inverse[2] = J[1] * J[5] - J[2] * J[4];
    inverse[3] = J[5] * J[6] - J[3] * J[8];
    inverse[4] = J[0] * J[8] - J[2] * J[6];
    inverse[5] = J[2] * J[3] - J[0] * J[5];
    inverse[6] = J[3] * J[7] - J[4] * J[6];
    inverse[7] = J[1] * J[6] - J[0] * J[7];
    inverse[8] = J[0] * J[4] - J[1] * J[3];
    det        = J[0] * inverse[0] + J[1] * inverse[3] + J[2] * inverse[6];
    PetscCheck(det > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model file '%s': body '%s' has a singular mass matrix of its axes, so its acceleration is undefined", desc->file, body->name);
    for (PetscInt k = 0; k < 3; k++) {
      PetscReal y[3] = {0, 0, 0};

      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) y[i] += inverse[3 * i + j] / det * xb[3 + 3 * j + k];
      for (PetscInt i = 0; i < 3; i++) xb[3 + 3 * i + k] = y[i];
    }
  }
  PetscFunctionReturn(0);
}

/*
  The mass block of body b (size x size, column-major) into mass, and into mask what of it can be non-zero at any
  parameters (an entry of Jbar that is zero at these values may be a parameter's: the sparse pattern must hold it)
*/
static void BodyMass(const MbsBody *body, const PetscReal p[], PetscInt size, PetscReal mass[], PetscReal mask[])
{
  PetscReal Jbar[9], pattern[9];

  for (PetscInt i = 0; i < size * size; i++) mass[i] = mask[i] = 0;
  if (body->flexible) { /* slot_mass (x) I3 */
    PetscInt ns = body->flexible->nslot;

    for (PetscInt s = 0; s < ns; s++)
      for (PetscInt t = 0; t < ns; t++)
        for (PetscInt k = 0; k < 3; k++) mass[(3 * s + k) + (3 * t + k) * size] = mask[(3 * s + k) + (3 * t + k) * size] = body->flexible->slot_mass[s * ns + t];
    return;
  }
  for (PetscInt k = 0; k < 3; k++) {
    mass[k * (size + 1)] = MbsValueOf(&body->mass, p);
    mask[k * (size + 1)] = 1;
  }
  if (!body->rigid) return;
  MbsBodyJbar(body, p, -1, Jbar);
  for (PetscInt k = 0; k < 9; k++) pattern[k] = PetscAbsReal(Jbar[k]);
  for (PetscInt m = 0; m < 6; m++) {
    PetscReal dJ[9];

    if (body->moment[m].param < 0) continue;
    MbsBodyJbar(body, NULL, m, dJ);
    for (PetscInt k = 0; k < 9; k++) pattern[k] += PetscAbsReal(dJ[k]);
  }
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt k = 0; k < 3; k++) {
        mass[(3 + 3 * i + k) + (3 + 3 * j + k) * size] = Jbar[3 * i + j];
        mask[(3 + 3 * i + k) + (3 + 3 * j + k) * size] = pattern[3 * i + j];
      }
}

/*
  x := M_ff^-1 x on the free coordinates f of a planar model, x := 0 on the pinned ones (accelerations that the plane
  holds at zero): M_ff, the mass block of each body restricted to its free coordinates (Jbar (x) I3 restricted: the
  in-plane components of the two axes in the plane and of r), is positive definite; a small LU per body
*/
static PetscErrorCode SolveMassPlanar(Described *d, const PetscReal p[], PetscReal x[])
{
  MbsDescription desc = d->desc;
  PetscInt       L = d->nlocal, *at = d->index, *pivots = d->index + L;
  PetscReal     *mass = d->local + 7 * L, *mask = mass + L * L, *block = mask + L * L, *y = d->local + 4 * L;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       size = BodySize(desc, b), k = 0;

    PetscCheck(MbsValueOf(&body->mass, p) > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model file '%s': body '%s' has mass %g, so its acceleration is undefined", desc->file, body->name, (double)MbsValueOf(&body->mass, p));
    BodyMass(body, p, size, mass, mask);
    for (PetscInt i = 0; i < size; i++)
      if (d->reduce[body->offset + i] >= 0) at[k++] = i;
    for (PetscInt j = 0; j < k; j++) {
      y[j] = x[body->offset + at[j]];
      for (PetscInt i = 0; i < k; i++) block[i + j * k] = mass[at[i] + at[j] * size];
    }
    PetscCheck(MbsDenseLUFactor(k, block, pivots) < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model file '%s': body '%s' has a singular mass matrix of its free coordinates in the plane, so its acceleration is undefined", desc->file, body->name);
    MbsDenseLUSolve(k, block, pivots, 1, y);
    for (PetscInt i = 0; i < size; i++) x[body->offset + i] = 0;
    for (PetscInt j = 0; j < k; j++) x[body->offset + at[j]] = y[j];
  }
  PetscFunctionReturn(0);
}

/* scale M(p) into the sink at rows and columns offset + its coordinates, body by body */
static PetscErrorCode AddMass(Described *d, const PetscReal p[], PetscReal scale, Sink *sink, PetscInt offset)
{
  MbsDescription desc = d->desc;
  PetscReal     *mass = d->local + 7 * d->nlocal, *block = mass + d->nlocal * d->nlocal, *mask = block + d->nlocal * d->nlocal;
  PetscInt      *index = d->index;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       size = BodySize(desc, b);

    if (!SinkWants(sink, 1, &b)) continue;
    BodyMass(body, p, size, mass, mask);
    for (PetscInt i = 0; i < size * size; i++) block[i] = scale * mass[i];
    for (PetscInt i = 0; i < size; i++) index[i] = offset + body->offset + i;
    PetscCall(SinkAddMasked(sink, size, index, size, index, block, mask)); /* what no parameters make non-zero gets no place */
  }
  PetscFunctionReturn(0);
}

/*
  State element e on its view at (t, q, v) and its states in s, sdot (the model's internal states; sdot NULL: s' = 0): its
  block (MbsElementStateFn) in d->state_local, R (ld = nq + nstate rows), with jac J (ld x (2 nq + 2 nstate)), with jacp
  Jp (ld x np, the element's parameters' columns); the view's nq into *nq
*/
static PetscErrorCode StateEvaluate(Described *d, PetscInt e, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], const PetscReal sdot[], PetscBool jac, PetscBool jacp, PetscInt *nq, PetscReal **R, PetscReal **J, PetscReal **Jp)
{
  const MbsElement *el = &d->desc->element[e];
  PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), ns = el->nstate, L = d->nlocal + MBS_MAX_STATE, ld;
  PetscReal        *lq, *lv, *ls = d->state_local, *lsdot = ls + MBS_MAX_STATE;
  MbsDescription    view = View(d, nb, b, q, v, &lq, &lv);

  PetscFunctionBeginUser;
  *nq = view->nq;
  ld  = *nq + ns;
  *R  = lsdot + MBS_MAX_STATE;
  *J  = *R + L;
  *Jp = *J + 2 * L * L;
  for (PetscInt j = 0; j < ns; j++) {
    ls[j]    = s[el->first_state + j];
    lsdot[j] = sdot ? sdot[el->first_state + j] : 0;
  }
  PetscCall(PetscArrayzero(*R, ld));
  if (jac) PetscCall(PetscArrayzero(*J, ld * 2 * ld));
  for (PetscInt k = d->param_start[e]; k < d->param_start[e + 1] && jacp; k++) PetscCall(PetscArrayzero(*Jp + d->param[k] * ld, ld));
  PetscCall(MbsElementStates(el)->state(view, el, t, lq, lv, ls, lsdot, *R, jac ? *J : NULL, jacp ? *Jp : NULL));
  PetscFunctionReturn(0);
}

/* scale times rows [r0, r0 + m) and columns [c0, c0 + k) of block (leading dimension ld) into the sink at rows, cols */
static PetscErrorCode SinkAddPart(Described *d, Sink *sink, PetscInt m, const PetscInt rows[], PetscInt k, const PetscInt cols[], const PetscReal block[], PetscInt ld, PetscInt r0, PetscInt c0, PetscReal scale)
{
  PetscInt   L    = d->nlocal + MBS_MAX_STATE;
  PetscReal *part = d->state_local + 2 * MBS_MAX_STATE + L + 2 * L * L + L * d->desc->nparam;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < m; i++) part[i + j * m] = scale * block[r0 + i + (c0 + j) * ld];
  PetscCall(SinkAdd(sink, m, rows, k, cols, part));
  PetscFunctionReturn(0);
}

/*
  The force rows (state false) or the state rows (state true) of state element e at (t, q, v, s, s'): into F (may be
  NULL) at the element's coordinates or states; into the sink J (may be NULL) at the rows offset[0] + coordinate or
  offset[4] + state and the columns offset[1] + coordinate (d/dq), offset[2] + coordinate (d/dv) and, unless offset[3]
  < 0, offset[3] + state (d/ds + shift d/ds'); d/dp into Jp (may be NULL) at the same rows.
*/
static PetscErrorCode AddStateElement(Described *d, PetscInt e, PetscBool state, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], const PetscReal sdot[], PetscReal shift, PetscReal F[], Sink *J, Sink *Jp, const PetscInt offset[5])
{
  const MbsElement *el = &d->desc->element[e];
  PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), ns = el->nstate, nq, ld, r0, m, *rows = d->index, *cols = d->index + d->nlocal, srow[MBS_MAX_STATE], scol[MBS_MAX_STATE];
  PetscBool         jac = SinkWants(J, nb, b), jacp = SinkWants(Jp, nb, b);
  const PetscInt   *row_index;
  PetscReal        *R, *Jl, *Jpl;

  PetscFunctionBeginUser;
  PetscCall(StateEvaluate(d, e, t, q, v, s, sdot, jac, jacp, &nq, &R, &Jl, &Jpl));
  ld = nq + ns;
  r0 = state ? nq : 0;
  m  = state ? ns : nq;
  for (PetscInt i = 0; i < m && F; i++) F[state ? el->first_state + i : d->global[i]] += R[r0 + i];
  if (!jac && !jacp) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < ns; j++) {
    srow[j] = offset[4] + el->first_state + j;
    scol[j] = offset[3] + el->first_state + j;
  }
  row_index = state ? srow : Shifted(d, nq, offset[0], rows);
  if (jac) {
    PetscCall(SinkAddPart(d, J, m, row_index, nq, Shifted(d, nq, offset[1], cols), Jl, ld, r0, 0, 1));
    PetscCall(SinkAddPart(d, J, m, row_index, nq, Shifted(d, nq, offset[2], cols), Jl, ld, r0, nq, 1));
    if (offset[3] >= 0) PetscCall(SinkAddPart(d, J, m, row_index, ns, scol, Jl, ld, r0, 2 * nq, 1));
    J->shifted = PETSC_TRUE;
    if (offset[3] >= 0 && state) PetscCall(SinkAddPart(d, J, m, row_index, ns, scol, Jl, ld, r0, 2 * nq + ns, shift));
    J->shifted = PETSC_FALSE;
  }
  for (PetscInt k = d->param_start[e]; k < d->param_start[e + 1] && jacp; k++) PetscCall(SinkAddPart(d, Jp, m, row_index, 1, &d->param[k], Jpl, ld, r0, d->param[k], 1));
  PetscFunctionReturn(0);
}

/* The state rows of every state element (AddStateElement()) */
static PetscErrorCode AddStates(Described *d, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], const PetscReal sdot[], PetscReal shift, PetscReal F[], Sink *J, Sink *Jp, const PetscInt offset[5])
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < d->desc->nelement; e++)
    if (d->desc->element[e].nstate) PetscCall(AddStateElement(d, e, PETSC_TRUE, t, q, v, s, sdot, shift, F, J, Jp, offset));
  PetscFunctionReturn(0);
}

/* block (nq x nq) of force element e on its view into the sink at rows, cols: only its support's rows and columns */
static PetscErrorCode SinkAddSupport(Described *d, PetscInt e, Sink *sink, PetscInt nq, const PetscInt rows[], const PetscInt cols[], const PetscReal block[])
{
  const PetscInt *support = d->support + d->support_start[e];
  PetscInt        m = d->support_start[e + 1] - d->support_start[e], L = d->nlocal, *part_rows = d->index + 2 * L, *part_cols = part_rows + L;
  PetscReal      *part = d->local + 7 * L + 2 * L * L; /* the third block: AddForces() fills the first two */

  PetscFunctionBeginUser;
  if (m == nq) {
    PetscCall(SinkAdd(sink, nq, rows, nq, cols, block));
    PetscFunctionReturn(0);
  }
  for (PetscInt j = 0; j < m; j++) {
    part_rows[j] = rows[support[j]];
    part_cols[j] = cols[support[j]];
    for (PetscInt i = 0; i < m; i++) part[i + j * m] = block[support[i] + support[j] * nq];
  }
  PetscCall(SinkAdd(sink, m, part_rows, m, part_cols, part));
  PetscFunctionReturn(0);
}

/* Which forces AddForces() adds: those of the state (gravity, the flexible bodies', the force elements'), the
   excitations (of time), or both */
typedef enum {
  FORCES_STATE      = 1,
  FORCES_EXCITATION = 2,
  FORCES_ALL        = 3
} ForceSet;

/*
  -f of gravity, of the flexible bodies' elasticity and damping (each on its body's coordinates) and of the force
  elements, and of the excitations (set), each element on its own coordinates (View()); gravity on a flexible body's
  slot s is int c_s dm g, row 0 of its slot mass:
  -f into F (nq, may be NULL; with rows_of, only the rows of the bodies it marks are complete); -df/dq and -df/dv into J (may be NULL) at the rows offset[0] + coordinate and the
  columns offset[1] + coordinate and offset[2] + coordinate, -df/ds of the state elements at the columns offset[3] +
  state (offset[3] < 0: none; s the internal states); -df/dp into Jp (may be NULL) at the rows offset[0] + coordinate
  and the parameter's column.
*/
/*
  -d(m g)/dp of a body's weight into the sink at the rows offset + coordinate: -g_k by its mass, -m (and a flexible
  body's -int c_s dm, row 0 of its slot mass, on slot s) by the component g_k; with both parameters each takes the
  other's current value, which is the mixed derivative d2(m g_k)/dm dg_k = 1 of the design and the linearisation
*/
static PetscErrorCode AddGravityP(MbsDescription desc, const MbsBody *body, PetscInt offset, Sink *Jp)
{
  PetscInt nslot = body->flexible ? body->flexible->nslot : 1;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) {
    PetscInt  row   = offset + body->offset + k;
    PetscReal value = -MbsValueOf(&desc->gravity[k], desc->p);

    if (body->mass.param >= 0) PetscCall(SinkAdd(Jp, 1, &row, 1, &body->mass.param, &value));
    for (PetscInt s = 0; s < nslot && desc->gravity[k].param >= 0; s++) {
      row   = offset + body->offset + 3 * s + k;
      value = -(s ? body->flexible->slot_mass[s] : MbsValueOf(&body->mass, desc->p));
      PetscCall(SinkAdd(Jp, 1, &row, 1, &desc->gravity[k].param, &value));
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode AddForces(Described *d, ForceSet set, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], PetscReal F[], const PetscBool rows_of[], Sink *J, Sink *Jp, const PetscInt offset[5])
{
  MbsDescription desc = d->desc;
  PetscInt       L = d->nlocal, *rows = d->index, *cols = d->index + L;
  PetscReal     *lF = d->local + 3 * L, *lJq = d->local + 7 * L, *lJv = lJq + L * L, *lJp = lJv + 2 * L * L;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody && (set & FORCES_STATE); b++) {
    const MbsBody *body  = &desc->body[b];
    PetscBool      force = (PetscBool)(F && Marked(rows_of, 1, &b)), jac = SinkWants(J, 1, &b), jacp = (PetscBool)(SinkWants(Jp, 1, &b) && body->flexible && body->flexible->damping.param >= 0);
    PetscInt       nq, param = body->flexible ? body->flexible->damping.param : -1;
    MbsDescription view;
    PetscReal     *lq, *lv;

    for (PetscInt k = 0; k < 3 && F; k++) F[body->offset + k] -= MbsValueOf(&body->mass, desc->p) * MbsValueOf(&desc->gravity[k], desc->p);
    for (PetscInt s = 1; body->flexible && s < body->flexible->nslot && F; s++)
      for (PetscInt k = 0; k < 3; k++) F[body->offset + 3 * s + k] -= body->flexible->slot_mass[s] * MbsValueOf(&desc->gravity[k], desc->p);
    if (SinkWants(Jp, 1, &b)) PetscCall(AddGravityP(desc, body, offset[0], Jp));
    if (!body->flexible) continue;
    if (!(force || jac || jacp)) continue;
    view = View(d, 1, &b, q, v, &lq, &lv);
    nq   = view->nq;
    PetscCall(PetscArrayzero(lF, nq));
    if (jac) PetscCall(PetscArrayzero(lJq, 2 * nq * nq));
    if (jacp) PetscCall(PetscArrayzero(lJp + param * nq, nq));
    MbsFlexibleForce(view, b, lq, lv, force ? lF : NULL, jac ? lJq : NULL, jac ? lJq + nq * nq : NULL, jacp ? lJp : NULL, nq);
    for (PetscInt i = 0; i < nq && force; i++) F[d->global[i]] += lF[i];
    if (jac) {
      PetscCall(SinkAdd(J, nq, Shifted(d, nq, offset[0], rows), nq, Shifted(d, nq, offset[1], cols), lJq));
      PetscCall(SinkAdd(J, nq, rows, nq, Shifted(d, nq, offset[2], cols), lJq + nq * nq));
    }
    if (jacp) PetscCall(SinkAdd(Jp, nq, Shifted(d, nq, offset[0], rows), 1, &param, lJp + param * nq));
  }
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), nq;
    PetscBool         force = (PetscBool)(F && Marked(rows_of, nb, b)), jac = SinkWants(J, nb, b), jacp = SinkWants(Jp, nb, b);
    MbsDescription    view;
    PetscReal        *lq, *lv;

    if (!((el->ops->kind == MBS_ELEMENT_FORCE && (set & FORCES_STATE)) || (el->ops->kind == MBS_ELEMENT_EXCITATION && (set & FORCES_EXCITATION))) || !(force || jac || jacp)) continue;
    if (el->nstate) {
      PetscCall(AddStateElement(d, e, PETSC_FALSE, t, q, v, s, NULL, 0, force ? F : NULL, J, Jp, offset));
      continue;
    }
    view           = View(d, nb, b, q, v, &lq, &lv);
    nq             = view->nq;
    view->support  = d->support + d->support_start[e];
    view->nsupport = d->support_start[e + 1] - d->support_start[e];
    PetscCall(PetscArrayzero(lF, nq));
    if (jac) PetscCall(PetscArrayzero(lJq, 2 * nq * nq));
    for (PetscInt k = d->param_start[e]; k < d->param_start[e + 1] && jacp; k++) PetscCall(PetscArrayzero(lJp + d->param[k] * nq, nq));
    PetscCall(el->ops->force(view, el, t, lq, lv, force ? lF : NULL, jac ? lJq : NULL, jac ? lJq + nq * nq : NULL, jacp ? lJp : NULL, nq));
    for (PetscInt i = 0; i < nq && force; i++) F[d->global[i]] += lF[i];
    if (jac) {
      PetscCall(SinkAddSupport(d, e, J, nq, Shifted(d, nq, offset[0], rows), Shifted(d, nq, offset[1], cols), lJq));
      PetscCall(SinkAddSupport(d, e, J, nq, rows, Shifted(d, nq, offset[2], cols), lJq + nq * nq));
    }
    for (PetscInt k = d->param_start[e]; k < d->param_start[e + 1] && jacp; k++) PetscCall(SinkAdd(Jp, nq, Shifted(d, nq, offset[0], rows), 1, &d->param[k], lJp + d->param[k] * nq));
  }
  PetscFunctionReturn(0);
}

/* Phi_q of constraint row r at q into d->row_grad and, with v, d(Phi_q v)/dq = H v into d->row_rate, on its grad list */
static void RowEvaluate(Described *d, PetscInt r, const PetscReal q[], const PetscReal v[])
{
  PetscInt   g0 = d->grad_start[r];
  PetscReal *g = d->row_grad, *rate = d->row_rate;

  for (PetscInt k = g0; k < d->grad_start[r + 1]; k++) g[k - g0] = d->grad0[k];
  for (PetscInt k = g0; k < d->grad_start[r + 1] && v; k++) rate[k - g0] = 0;
  for (PetscInt e = d->hess_start[r]; e < d->hess_start[r + 1]; e++) g[d->hess_at[e]] += d->hess[e] * q[d->hess_j[e]];
  for (PetscInt e = d->hess_start[r]; e < d->hess_start[r + 1] && v; e++) rate[d->hess_at[e]] += d->hess[e] * v[d->hess_j[e]];
}

/* The part of the residual at (t, U) that the excitations, U' and the internal states' rows leave: -v, -f of the
   state, Phi_q^T mu, Phi_q^T lambda, Phi_q v - d' and Phi - d (into F, zeroed here) */
static PetscErrorCode ResidualOfState(MbsModel model, PetscReal t, const PetscReal U[], PetscReal F[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = d->desc;
  PetscInt         nq = desc->nq, nc = desc->nc;
  const PetscReal *q = U, *v = U + nq, *lambda = U + 2 * nq, *mu = U + 2 * nq + nc, *s = U + 2 * nq + 2 * nc;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(F, NFull(model)));
  for (PetscInt i = 0; i < nq; i++) F[i] = -v[i];
  PetscCall(AddForces(d, FORCES_STATE, t, q, v, s, F + nq, NULL, NULL, NULL, NULL));
  for (PetscInt r = 0; r < nc; r++) {
    const PetscInt  *at = d->grad_i + d->grad_start[r];
    const PetscReal *g0 = d->grad0 + d->grad_start[r], *g = d->row_grad;
    PetscReal        value = 0, rate = 0;

    if (RowDropped(d, r)) continue; /* no multipliers, and its rows are none of the model's */
    RowEvaluate(d, r, q, NULL);
    for (PetscInt k = 0; k < d->grad_start[r + 1] - d->grad_start[r]; k++) {
      value += q[at[k]] * (g0[k] + g[k]);
      rate += v[at[k]] * g[k];
      F[at[k]] += mu[r] * g[k];
      F[nq + at[k]] += lambda[r] * g[k];
    }
    F[2 * nq + r]      = rate - RowMotion(d, r, t, 1, NULL);
    F[2 * nq + nc + r] = d->value0[r] + value / 2 - RowMotion(d, r, t, 0, NULL);
  }
  PetscFunctionReturn(0);
}

/*
  F = (that of ResidualOfState()) + (q' and M v') - f of the excitations, and the internal states' rows R(q, v, s, s').
  A step of CN asks for F(t_n, U_n, 0), its affine term, where the last Newton iteration of the step before ended:
  the part of (t, U) alone is kept from the last call and serves it (the excitations, which an input or a controller
  in the loop moves at the same point, and the states' rows are evaluated at every call).
*/
static PetscErrorCode DescribedResidual(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal F[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         nq = desc->nq, nc = desc->nc;
  const PetscReal *q = U, *v = U + nq, *s = U + 2 * nq + 2 * nc;
  PetscBool        held;

  PetscFunctionBeginUser;
  PetscCall(PointKeyHolds(model, &d->residual_point, t, U, NULL, &held));
  if (!held) {
    d->residual_point.set = PETSC_FALSE; /* until it is in */
    PetscCall(ResidualOfState(model, t, U, d->residual_u));
    PetscCall(PointKeySet(model, &d->residual_point, t, U, NULL));
  }
  PetscCall(PetscArraycpy(F, d->residual_u, NFull(model)));
  for (PetscInt i = 0; i < nq; i++) F[i] += Udot[i];
  AddMassTimes(desc, model->p, Udot + nq, F + nq);
  PetscCall(AddForces(d, FORCES_EXCITATION, t, q, v, s, F + nq, NULL, NULL, NULL, NULL));
  PetscCall(AddStates(d, t, q, v, s, Udot + 2 * nq + 2 * nc, 0, F + 2 * nq + 2 * nc, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

typedef enum {
  RHESS, /* the Hessian's entries, scaled */
  RGRAD, /* the coordinates of Phi_q */
  RRATE  /* the coordinates of d(Phi_q v)/dq */
} RowList;

/*
  The entries of one of constraint row r's lists into the sink: a list of coordinates gives the values of RowEvaluate()
  (scale 1) in the coordinate's row (row_at >= 0: the coordinate shifted by row_at; else in row -1 - row_at) and column
  (the same with col_at), the Hessian scale H_ij in row i, column j, each shifted by row_at, col_at. What
  SinkAddMasked() took from the row's block and its mask, without the zeros.
*/
static PetscErrorCode RowEntries(Described *d, PetscInt r, RowList list, PetscInt row_at, PetscInt col_at, PetscReal scale, Sink *sink)
{
  const PetscInt *start = list == RHESS ? d->hess_start : list == RGRAD ? d->grad_start : d->rate_start, *grad = d->grad_i + d->grad_start[r];
  PetscInt        count = start[r + 1] - start[r];

  PetscFunctionBeginUser;
  if (SinkSlotsFound(sink)) { /* the inner loop of every Jacobian's constraint rows: one loop per list, no indices to make */
    const PetscInt *slot    = sink->slot + sink->cursor;
    PetscScalar    *values0 = sink->values0 && !sink->shifted ? sink->values0 : NULL;

    sink->cursor += count;
    if (list == RHESS)
      for (PetscInt c = 0; c < count; c++) {
        if (slot[c] >= 0) sink->values[slot[c]] += scale * d->hess[start[r] + c];
      }
    else if (list == RGRAD)
      for (PetscInt c = 0; c < count; c++) {
        if (slot[c] >= 0) sink->values[slot[c]] += d->row_grad[c];
      }
    else
      for (PetscInt c = 0; c < count; c++) {
        if (slot[c] >= 0) sink->values[slot[c]] += d->row_rate[d->rate_at[start[r] + c]];
      }
    for (PetscInt c = 0; c < count && values0; c++) { /* the same entries into the shift-0 part (accelerometers) */
      if (slot[c] >= 0) values0[slot[c]] += list == RHESS ? scale * d->hess[start[r] + c] : list == RGRAD ? d->row_grad[c] : d->row_rate[d->rate_at[start[r] + c]];
    }
    PetscFunctionReturn(0);
  }
  for (PetscInt c = 0; c < count; c++) {
    PetscInt  e = start[r] + c, at = list == RRATE ? d->rate_at[e] : c, i = list == RHESS ? d->hess_i[e] : grad[at], j = list == RHESS ? d->hess_j[e] : i;
    PetscReal value = list == RHESS ? scale * d->hess[e] : list == RGRAD ? d->row_grad[at] : d->row_rate[at];

    d->entry_row[c]   = row_at >= 0 ? i + row_at : -1 - row_at;
    d->entry_col[c]   = col_at >= 0 ? j + col_at : -1 - col_at;
    d->entry_value[c] = value;
  }
  PetscCall(SinkAddEntries(sink, count, d->entry_row, d->entry_col, d->entry_value));
  PetscFunctionReturn(0);
}

/*
  The view of constraint row r's bodies, and its Hessian H (m x m, column-major, zeroed here) and with g (may be NULL)
  its gradient at q = 0, its constant part; with mask, |H| and |g| plus those of its derivatives by the parameters that
  move a joint's point (RowP): the row is affine in them, so that its Hessian and constant part can be non-zero only
  where those of the file's row or of a derivative are, whatever p.
*/
static MbsDescription RowHessian(Described *d, PetscInt r, PetscBool mask, PetscReal H[], PetscReal g[], PetscReal q0[], PetscInt *m)
{
  PetscInt       b[MBS_VIEW_BODIES], nb = RowBodies(d, r, b), k0, k1;
  PetscReal     *lq, *lv;
  MbsDescription view = View(d, nb, b, NULL, NULL, &lq, &lv);

  RowParameters(d, r, &k0, &k1);
  *m = view->nq;
  for (PetscInt i = 0; i < *m * *m; i++) H[i] = 0;
  for (PetscInt i = 0; i < *m && g; i++) g[i] = q0[i] = 0;
  MbsBilinearAddHessian(view, d->row[r], 1, H, *m);
  if (g) MbsBilinearAddGradient(view, d->row[r], q0, 1, g, 1);
  for (PetscInt k = k0; k < k1 && mask; k++) {
    MbsBilinear drow;
    PetscReal  *Hj = H + *m * *m, *gj = Hj + *m * *m;

    if (!RowP(d, view, r, d->param[k], &drow)) continue;
    for (PetscInt i = 0; i < *m * *m; i++) Hj[i] = 0;
    for (PetscInt i = 0; i < *m; i++) gj[i] = 0;
    MbsBilinearAddHessian(view, &drow, 1, Hj, *m);
    MbsBilinearAddGradient(view, &drow, q0, 1, gj, 1);
    for (PetscInt i = 0; i < *m * *m; i++) H[i] = PetscAbsReal(H[i]) + PetscAbsReal(Hj[i]);
    for (PetscInt i = 0; i < *m; i++) g[i] = PetscAbsReal(g[i]) + PetscAbsReal(gj[i]);
  }
  if (mask && d->row_owner[r] >= 0 && MbsJointAxisRowMoves(&d->desc->element[d->row_owner[r]], r - d->desc->element[d->row_owner[r]].first_row)) /* not affine in its axis (geometry.c): every coordinate */
    for (PetscInt i = 0; i < *m * *m; i++) H[i] = g[i % *m] = 1;
  return view;
}

/* The values of constraint row r's compiled lists at its current rows, which a joint's point moves: its Hessian's
   entries, Phi_q's constant part and Phi at q = 0. The lists hold the view's coordinates in its order (RowPatternsSetUp()). */
static void RowCompile(Described *d, PetscInt r)
{
  PetscInt       m, L = d->nlocal, c = d->hess_start[r], k = d->grad_start[r];
  PetscReal     *H = d->local + 7 * L, *q0 = H + L * L, *g = q0 + L;
  MbsDescription view = RowHessian(d, r, PETSC_FALSE, H, g, q0, &m);

  d->value0[r] = MbsBilinearValue(view, d->row[r], q0);
  for (PetscInt i = 0; i < m && k < d->grad_start[r + 1]; i++)
    if (d->global[i] == d->grad_i[k]) d->grad0[k++] = g[i];
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < m && c < d->hess_start[r + 1]; i++)
      if (d->global[i] == d->hess_i[c] && d->global[j] == d->hess_j[c]) d->hess[c++] = H[i + j * m];
}

/*
  The compiled rows of RowEvaluate() and RowEntries(), once: a constraint row's Hessian is constant (elementimpl.h), and
  Phi_q = q^T H + its constant part (at q = 0) can be non-zero only where that part or a row of H is, d(Phi_q v)/dq = H v
  only where a row of H is (with a joint's point a parameter: where they can be for some p, RowHessian()). The sparse
  matrices hold no place for what is zero whatever the state, and KLU's factors no fill from it.
*/
static PetscErrorCode RowPatternsSetUp(Described *d)
{
  MbsDescription desc = d->desc;
  PetscInt       nc = desc->nc, L = d->nlocal, nh = 0, ng = 0, nr = 0, most = 0, *at = d->index;
  PetscReal     *Hmask, *gmask, *q0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(3 * L * L, &Hmask, L, &gmask, L, &q0));
  PetscCall(PetscMalloc4(nc + 1, &d->hess_start, nc + 1, &d->grad_start, nc + 1, &d->rate_start, nc, &d->value0));
  for (PetscInt pass = 0; pass < 2; pass++) {
    nh = ng = nr = 0;
    for (PetscInt r = 0; r < nc; r++) {
      PetscInt m;

      (void)RowHessian(d, r, PETSC_TRUE, Hmask, gmask, q0, &m);
      d->hess_start[r] = nh;
      d->grad_start[r] = ng;
      d->rate_start[r] = nr;
      for (PetscInt i = 0; i < m; i++) {
        PetscReal row_sum = 0;

        for (PetscInt j = 0; j < m; j++) row_sum += PetscAbsReal(Hmask[i + j * m]);
        at[i] = ng - d->grad_start[r];
        if (pass && row_sum + PetscAbsReal(gmask[i]) != 0) d->grad_i[ng] = d->global[i];
        if (pass && row_sum != 0) d->rate_at[nr] = at[i];
        ng += row_sum + PetscAbsReal(gmask[i]) != 0;
        nr += row_sum != 0;
      }
      for (PetscInt j = 0; j < m; j++)
        for (PetscInt i = 0; i < m; i++) {
          if (Hmask[i + j * m] == 0) continue;
          if (pass) {
            d->hess_i[nh]  = d->global[i];
            d->hess_j[nh]  = d->global[j];
            d->hess_at[nh] = at[i];
          }
          nh++;
        }
      most = PetscMax(most, PetscMax(nh - d->hess_start[r], ng - d->grad_start[r]));
    }
    d->hess_start[nc] = nh;
    d->grad_start[nc] = ng;
    d->rate_start[nc] = nr;
    if (!pass) {
      PetscCall(PetscMalloc5(nh, &d->hess_i, nh, &d->hess_j, nh, &d->hess_at, nh, &d->hess, nr, &d->rate_at));
      PetscCall(PetscMalloc2(ng, &d->grad_i, ng, &d->grad0));
      PetscCall(PetscMalloc5(most, &d->entry_row, most, &d->entry_col, most, &d->entry_value, most, &d->row_grad, most, &d->row_rate));
    }
  }
  PetscCall(PetscFree3(Hmask, gmask, q0));
  for (PetscInt r = 0; r < nc; r++) RowCompile(d, r);
  PetscFunctionReturn(0);
}

/*
  dF/dU + shift dF/dU' into the sink, entity by entity: the unit rows q' - v, the mass, each force element on its
  coordinates, each constraint row on its bodies' (Phi_q v and Phi_q; Phi_q^T lambda, Phi_q^T mu and their
  derivatives in q). The dense Jacobian, the sparse one and the products of the accelerometers all come from here.
*/
static PetscErrorCode Assemble(MbsModel model, PetscReal t, const PetscReal U[], PetscReal shift, Sink *sink)
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         nq = desc->nq, nc = desc->nc, offset[5] = {nq, 0, nq, 2 * nq + 2 * nc, 2 * nq + 2 * nc};
  const PetscReal *q = U, *v = U + nq, *lambda = U + 2 * nq, *mu = U + 2 * nq + nc, *s = U + 2 * nq + 2 * nc, minus_one = -1;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nq && sink->type != SINK_PRODUCT; i++) { /* the rows q' - v: no product reads them */
    PetscInt column = nq + i;

    sink->shifted = PETSC_TRUE;
    PetscCall(SinkAdd(sink, 1, &i, 1, &i, &shift));
    sink->shifted = PETSC_FALSE;
    PetscCall(SinkAdd(sink, 1, &i, 1, &column, &minus_one));
  }
  sink->shifted = PETSC_TRUE;
  PetscCall(AddMass(d, model->p, shift, sink, nq));
  sink->shifted = PETSC_FALSE;
  PetscCall(AddForces(d, FORCES_ALL, t, q, v, s, NULL, NULL, sink, NULL, offset));
  PetscCall(AddStates(d, t, q, v, s, NULL, shift, NULL, sink, NULL, offset)); /* the state rows are affine in s': J does not depend on it */
  for (PetscInt r = 0; r < nc; r++) {
    PetscInt b[MBS_VIEW_BODIES], nb = RowBodies(d, r, b), lambda_col = 2 * nq + r, mu_col = 2 * nq + nc + r, phi_row[2] = {2 * nq + r, 2 * nq + nc + r};

    if (!SinkWants(sink, nb, b) || RowDropped(d, r)) continue;
    RowEvaluate(d, r, q, v);
    PetscCall(RowEntries(d, r, RHESS, 0, 0, mu[r], sink));            /* d(Phi_q^T mu)/dq */
    PetscCall(RowEntries(d, r, RHESS, nq, 0, lambda[r], sink));       /* d(Phi_q^T lambda)/dq */
    PetscCall(RowEntries(d, r, RGRAD, nq, -1 - lambda_col, 1, sink)); /* Phi_q^T, column of lambda_r */
    PetscCall(RowEntries(d, r, RGRAD, 0, -1 - mu_col, 1, sink));      /* Phi_q^T, column of mu_r */
    if (sink->type == SINK_PRODUCT) continue;                         /* no product reads the rows of lambda and mu */
    PetscCall(RowEntries(d, r, RRATE, -1 - phi_row[0], 0, 1, sink));  /* d(Phi_q v)/dq */
    PetscCall(RowEntries(d, r, RGRAD, -1 - phi_row[1], 0, 1, sink));  /* Phi_q */
    PetscCall(RowEntries(d, r, RGRAD, -1 - phi_row[0], nq, 1, sink)); /* d(Phi_q v)/dv */
  }
  PetscFunctionReturn(0);
}

/*
  The dense Jacobian (J zeroed by the caller) from its parts dF/dU and dF/dU' (assembled at shift 1, so that dF/dU'
  comes exact), both kept at their point: an adjoint step of CN asks for it at both ends, so at every node twice, with
  two shifts (the sparse one's integrator shifts it itself, simulate.c)
*/
static PetscErrorCode DescribedJacobian(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, PetscReal J[])
{
  Described *d  = (Described *)model->data;
  PetscInt   nn = NFull(model) * NFull(model);
  PetscBool  held;

  PetscFunctionBeginUser;
  (void)Description(model); /* first: the geometry follows p */
  PetscCall(PointKeyHolds(model, &d->dense_point, t, U, NULL, &held));
  if (!held) {
    Sink sink;

    d->dense_point.set = PETSC_FALSE;
    if (!d->dense_u) PetscCall(PetscMalloc2(nn, &d->dense_u, nn, &d->dense_udot));
    PetscCall(PetscArrayzero(d->dense_u, nn));
    PetscCall(PetscArrayzero(d->dense_udot, nn));
    sink = (Sink){.type = SINK_DENSE, .dense = d->dense_u, .dense_shifted = d->dense_udot, .ld = NFull(model)};
    PetscCall(Assemble(model, t, U, 1, &sink));
    PetscCall(PointKeySet(model, &d->dense_point, t, U, NULL));
  }
  for (PetscInt i = 0; i < nn; i++) J[i] += d->dense_u[i] + shift * d->dense_udot[i];
  PetscFunctionReturn(0);
}

/*
  The rows of a joint whose point moves with p_j (RowP: dPhi_r/dp_j = s(q), bilinear) in dF/dp: s_q^T mu_r in the rows
  q' - v, s_q^T lambda_r in the rows M v' - f, s_q v and s in the rows Phi_q v and Phi (no product reads those)
*/
static PetscErrorCode AddJointRowsP(Described *d, const PetscReal U[], Sink *sink)
{
  MbsDescription   desc = d->desc;
  PetscInt         nq = desc->nq, nc = desc->nc, L = d->nlocal;
  const PetscReal *q = U, *v = U + nq, *lambda = U + 2 * nq, *mu = U + 2 * nq + nc;
  PetscReal       *g = d->local + 4 * L, *gl = g + L, *gm = gl + L;

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < nc && d->joint_geometry; r++) {
    PetscInt       b[MBS_VIEW_BODIES], nb = RowBodies(d, r, b), m, k0, k1, phi_row[2] = {2 * nq + r, 2 * nq + nc + r};
    MbsDescription view;
    PetscReal     *lq, *lv;

    RowParameters(d, r, &k0, &k1);
    if (d->row_owner[r] < 0 || k0 == k1 || !SinkWants(sink, nb, b)) continue;
    view = View(d, nb, b, q, v, &lq, &lv);
    m    = view->nq;
    for (PetscInt k = k0; k < k1; k++) {
      MbsBilinear drow;
      PetscReal   value[2];

      if (!RowP(d, view, r, d->param[k], &drow)) continue;
      for (PetscInt i = 0; i < m; i++) g[i] = 0;
      MbsBilinearAddGradient(view, &drow, lq, 1, g, 1);
      for (PetscInt i = 0; i < m; i++) {
        gl[i] = lambda[r] * g[i];
        gm[i] = mu[r] * g[i];
      }
      PetscCall(SinkAdd(sink, m, Shifted(d, m, 0, d->index), 1, &d->param[k], gm));
      PetscCall(SinkAdd(sink, m, Shifted(d, m, nq, d->index), 1, &d->param[k], gl));
      if (sink->type == SINK_PRODUCT) continue;
      value[0] = MbsBilinearRate(view, &drow, lq, lv);
      value[1] = MbsBilinearValue(view, &drow, lq);
      PetscCall(SinkAdd(sink, 2, phi_row, 1, &d->param[k], value));
    }
  }
  PetscFunctionReturn(0);
}

/* Whether dF/dp's columns of the parameters j with column[j] >= 0 read U' (AssembleP()): in the internal states' rows,
   and at a mass or a moment of inertia */
static PetscBool ReadsRate(MbsDescription desc, const PetscInt column[])
{
  PetscBool rate = (PetscBool)(desc->ns > 0);

  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];

    rate = (PetscBool)(rate || (body->mass.param >= 0 && column[body->mass.param] >= 0));
    for (PetscInt m = 0; m < 6 && body->rigid && !body->flexible; m++) rate = (PetscBool)(rate || (body->moment[m].param >= 0 && column[body->moment[m].param] >= 0));
  }
  return rate;
}

/* dF/dp into the sink: the masses' d(m r'')/dm (their weight's in AddForces()), the moments' d(Jbar (x) I3 (u'', v'', w''))/dI_m, the force
   elements' (and flexible bodies') -df/dp, the joints' rows that follow their points (AddJointRowsP), and -d'_p, -d_p
   of the prescribed motions in their rows Phi_q v - d', Phi - d (no product reads those rows) */
static PetscErrorCode AssembleP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], Sink *sink)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, offset[5] = {nq, 0, nq, 2 * nq + 2 * nc, 2 * nq + 2 * nc};

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody   *body = &desc->body[b];
    const PetscReal *a    = Udot + nq + body->offset + 3;
    PetscInt         rows[9];

    if (!SinkWants(sink, 1, &b)) continue;
    for (PetscInt k = 0; k < 3 && body->mass.param >= 0; k++) { /* its weight's -g_k: AddForces() */
      PetscInt row = nq + body->offset + k;

      PetscCall(SinkAdd(sink, 1, &row, 1, &body->mass.param, &Udot[row]));
    }
    for (PetscInt m = 0; m < 6 && body->rigid && !body->flexible; m++) {
      PetscReal dJ[9], value[9] = {0};

      if (body->moment[m].param < 0) continue;
      MbsBodyJbar(body, NULL, m, dJ);
      AddInertiaTimes(dJ, a, value);
      for (PetscInt r = 0; r < 9; r++) rows[r] = nq + body->offset + 3 + r;
      PetscCall(SinkAdd(sink, 9, rows, 1, &body->moment[m].param, value));
    }
  }
  PetscCall(AddForces(d, FORCES_ALL, t, U, U + nq, U + offset[3], NULL, NULL, NULL, sink, offset));
  PetscCall(AddStates(d, t, U, U + nq, U + offset[3], Udot + offset[3], 0, NULL, NULL, sink, offset));
  PetscCall(AddJointRowsP(d, U, sink));
  for (PetscInt e = 0; e < desc->nelement && sink->type != SINK_PRODUCT; e++) {
    const MbsElement *el   = &desc->element[e];
    PetscReal        *dddp = ParameterScratch(d), value;
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b);

    if (!el->motion || !SinkWants(sink, nb, b)) continue;
    for (PetscInt order = 0; order < 2; order++) {
      PetscInt row = 2 * nq + (1 - order) * desc->nc + el->first_row;

      el->motion(desc, el, t, order, dddp);
      for (PetscInt k = d->param_start[e]; k < d->param_start[e + 1]; k++) {
        value = -dddp[d->param[k]];
        PetscCall(SinkAdd(sink, 1, &row, 1, &d->param[k], &value));
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobianP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal Jp[])
{
  Sink sink = {.type = SINK_DENSE, .dense = Jp, .ld = NFull(model)};

  PetscFunctionBeginUser;
  PetscCall(AssembleP(model, t, U, Udot, &sink));
  PetscFunctionReturn(0);
}

/* dF/dU + shift dF/dU' (wrt_p false) or dF/dp at U' = Udot (wrt_p true) into the sink */
static PetscErrorCode AssembleEither(MbsModel model, PetscBool wrt_p, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, Sink *sink)
{
  PetscFunctionBeginUser;
  if (wrt_p) PetscCall(AssembleP(model, t, U, Udot, sink));
  else PetscCall(Assemble(model, t, U, shift, sink));
  PetscFunctionReturn(0);
}

/* The sizes F(t) - u at t of the forces with input: true (model->ncontrol), which dF/dp's columns of their points read
   (-(dP/dp_j)^T e (F(t) - u)) and a point's key does not hold: the input and the controller's force change them at the
   same point */
static void ControlSizes(MbsModel model, PetscReal t, PetscReal size[])
{
  Described *d = (Described *)model->data;

  for (PetscInt k = 0; k < model->ncontrol; k++) size[k] = d->control_element[k]->ops->law(d->desc, d->control_element[k], t, NULL);
}

/* The entry k of dF/dp's kept values (SparseForm) filled at (t, U, U') with the same control sizes, -1: none (the
   Jacobian keeps none) */
static PetscErrorCode SparseKeptFind(MbsModel model, SparseForm *form, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscInt *entry)
{
  PetscReal size[MBS_MAX_CONTROL];

  PetscFunctionBeginUser;
  *entry = -1;
  if (!form->cached[0]) PetscFunctionReturn(0);
  ControlSizes(model, t, size);
  for (PetscInt k = 0; k < 2 && *entry < 0; k++) {
    PetscBool held, same;

    PetscCall(PointKeyHolds(model, &form->point[k], t, U, Udot, &held));
    PetscCall(PetscArraycmp(size, form->control_size[k], model->ncontrol, &same));
    if (held && same) *entry = k;
  }
  if (*entry >= 0) form->next = 1 - *entry;
  PetscFunctionReturn(0);
}

/* The entry of dF/dp's kept values that a new point at t takes, the less recently used, emptied until PointKeySet() */
static PetscInt SparseKeptNext(MbsModel model, SparseForm *form, PetscReal t)
{
  PetscInt entry = form->next;

  form->next             = 1 - entry;
  form->point[entry].set = PETSC_FALSE;
  ControlSizes(model, t, form->control_size[entry]);
  return entry;
}

/* The matrix of form into the AIJ A of SparseCreate (zeroed by the caller): straight into its values, or its values
   kept at the same point (SparseForm) */
static PetscErrorCode SparseAssemble(MbsModel model, SparseForm *form, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, Mat A)
{
  Sink     sink = {.type = SINK_SLOTS, .slot = form->slot, .values0 = form->values0};
  PetscInt kept, entry = 0;

  PetscFunctionBeginUser;
  (void)Description(model); /* first: an input that came or went empties dF/dp's cache */
  PetscCall(SparseKeptFind(model, form, t, U, Udot, &kept));
  form->read = PETSC_TRUE;
  PetscCall(MatSeqAIJGetArray(A, &sink.values));
  if (kept >= 0) PetscCall(PetscArraycpy(sink.values, form->cached[kept], form->nnz));
  else {
    if (form->values0) form->point[0].set = PETSC_FALSE;
    if (form->values0) PetscCall(PetscArrayzero(form->values0, form->nnz));
    if (form->cached[0]) entry = SparseKeptNext(model, form, t);
    PetscCall(AssembleEither(model, form->wrt_p, t, U, Udot, shift, &sink));
    if (form->cached[0]) PetscCall(PetscArraycpy(form->cached[entry], sink.values, form->nnz));
  }
  PetscCall(MatSeqAIJRestoreArray(A, &sink.values));
  if (kept >= 0) PetscFunctionReturn(0);
  PetscCheck(sink.cursor == form->nslot, PETSC_COMM_SELF, PETSC_ERR_PLIB, "An assembly of %s wrote %" PetscInt_FMT " entries, not the %" PetscInt_FMT " of its places", form->wrt_p ? "dF/dp" : "the Jacobian", sink.cursor, form->nslot);
  if (form->values0 || form->cached[0]) PetscCall(PointKeySet(model, &form->point[entry], t, U, Udot));
  PetscFunctionReturn(0);
}

/* The places (zeros too) of one assembly at the state U in the preallocator pre (n x ncol), then the AIJ A with them,
   and the place in A's values of every entry an assembly writes, in its order */
static PetscErrorCode SparsePlaces_Private(MbsModel model, SparseForm *form, const PetscReal U[], PetscInt ncol, Mat pre, Mat *A)
{
  Described      *d      = (Described *)model->data;
  PetscInt       *column = form->wrt_p ? d->column : NULL, nrow;
  const PetscInt *map    = d->planar >= 0 ? d->reduce : NULL;
  Sink            sink   = {.type = SINK_MAT, .mat = pre, .column = column, .map = map};
  PetscBool       done;

  PetscFunctionBeginUser;
  PetscCall(MatSetSizes(pre, model->n, ncol, model->n, ncol));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetUp(pre));
  PetscCall(MatSetOption(pre, MAT_ROW_ORIENTED, PETSC_FALSE));
  PetscCall(AssembleEither(model, form->wrt_p, model->t0, U, U, 1, &sink));
  PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, model->n, ncol, model->n, ncol));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, *A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  sink = (Sink){.type = SINK_SLOTS, .record = PETSC_TRUE, .column = column, .map = map};
  PetscCall(MatGetRowIJ(*A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &sink.ia, &sink.ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_LIB, "A sparse matrix of model %s gives no row structure", model->type);
  PetscCall(AssembleEither(model, form->wrt_p, model->t0, U, U, 1, &sink)); /* counts */
  PetscCall(PetscFree(form->slot));
  form->nslot = sink.cursor;
  PetscCall(PetscMalloc1(form->nslot, &form->slot));
  sink.slot   = form->slot;
  sink.cursor = 0;
  PetscCall(AssembleEither(model, form->wrt_p, model->t0, U, U, 1, &sink));
  form->nnz          = sink.ia[nrow];
  form->point[0].set = form->point[1].set = form->read = PETSC_FALSE;
  PetscCall(PetscFree(form->cached[0]));
  if (form->wrt_p) PetscCall(PetscMalloc1(2 * form->nnz, &form->cached[0]));
  form->cached[1] = form->wrt_p ? form->cached[0] + form->nnz : NULL;
  if (!form->wrt_p) { /* the Jacobian's places, for values0, which only accelerometers of a 3D model read (DescribedChannels(): a planar one's rows are not U_full's) */
    PetscBool accelerometer = PETSC_FALSE;

    for (PetscInt e = 0; e < d->desc->nelement; e++) accelerometer = (PetscBool)(accelerometer || d->desc->element[e].ops->acceleration);
    PetscCall(PetscFree2(form->ia, form->ja));
    PetscCall(PetscFree(form->values0));
    PetscCall(PetscMalloc2(nrow + 1, &form->ia, form->nnz, &form->ja));
    if (accelerometer && d->planar < 0) PetscCall(PetscMalloc1(form->nnz, &form->values0));
    PetscCall(PetscArraycpy(form->ia, sink.ia, nrow + 1));
    PetscCall(PetscArraycpy(form->ja, sink.ja, form->nnz));
  }
  PetscCall(MatRestoreRowIJ(*A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &sink.ia, &sink.ja, &done));
  PetscFunctionReturn(0);
}

/*
  The AIJ n x ncol of form (the Jacobian, or dF/dp's identified columns), preallocated with every entry its assembly
  writes, zeros too: an assembly writes the same places in the same order whatever the state (U, a valid state such as
  the initial one, only lets the elements evaluate), so a preallocator records them once, and the pattern, and KLU's
  symbolic factorisation, hold for every state; and the places of the entries in the value array are found once, so
  that later assemblies add straight into it. O(elements) entries: a body couples only with the bodies its elements
  join it to, a parameter only with the coordinates of its element's bodies.
*/
static PetscErrorCode SparseCreate(MbsModel model, SparseForm *form, const PetscReal U[], PetscInt ncol, Mat *A)
{
  Mat pre;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, &pre));
  MbsCallUndo(SparsePlaces_Private(model, form, U, ncol, pre, A), MatDestroy(&pre));
  PetscCall(MatDestroy(&pre));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobianMat(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, Mat J)
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(SparseAssemble(model, &d->jacobian, t, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), shift, J));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobianCreate(MbsModel model, const PetscReal U[], Mat *J)
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(SparseCreate(model, &d->jacobian, Full(d, U, PETSC_FALSE, 0), model->n, J));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobianPMat(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], Mat Jp)
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(SparseAssemble(model, &d->jacobian_p, t, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), 0, Jp));
  PetscFunctionReturn(0);
}

/* dF/dp's columns of the identified parameters id, made at the file's pose and velocity (a state every element takes) */
static PetscErrorCode DescribedJacobianPCreate(MbsModel model, PetscInt nid, const PetscInt id[], Mat *Jp)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = d->desc;
  PetscReal     *U;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < model->np; k++) d->column[k] = -1;
  for (PetscInt k = 0; k < nid; k++) d->column[id[k]] = k;
  d->jacobian_p.point[0].rate = d->jacobian_p.point[1].rate = ReadsRate(desc, d->column);
  PetscCall(PetscCalloc1(NFull(model), &U));
  for (PetscInt b = 0; b < desc->nbody; b++) MbsBodyPose(&desc->body[b], U + desc->body[b].offset, U + desc->nq + desc->body[b].offset);
  MbsCallUndo(SparseCreate(model, &d->jacobian_p, U, nid, Jp), PetscFree(U));
  PetscCall(PetscFree(U));
  PetscFunctionReturn(0);
}

/*
  y of sensor element e on its view at the accelerations a (nq, NULL: none), and scale times its dy/dq, dy/dv added into
  dydu (n, may be NULL) and scale times its dy/da into dyda (nq, may be NULL)
*/
static PetscErrorCode ViewSensor(MbsModel model, PetscInt e, const PetscReal U[], const PetscReal a[], PetscReal scale, PetscReal *y, PetscReal dydu[], PetscReal dyda[])
{
  Described        *d    = (Described *)model->data;
  MbsDescription    desc = Description(model);
  const MbsElement *el   = &desc->element[e];
  PetscInt          nq = desc->nq, L = d->nlocal, b[MBS_VIEW_BODIES], nb = ElementBodies(el, b);
  PetscReal        *lq, *lv, *la = d->local + 2 * L, *ldq = la + L, *ldv = ldq + L, *lda = ldv + L;
  MbsDescription    view  = View(d, nb, b, U, U + nq, &lq, &lv);
  PetscBool         chain = (PetscBool)(a && dyda);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < view->nq && a; i++) la[i] = a[d->global[i]];
  PetscCall(PetscArrayzero(ldq, 3 * L));
  PetscCall(el->ops->sensor(view, el, lq, lv, a ? la : NULL, y, dydu ? ldq : NULL, dydu ? ldv : NULL, chain ? lda : NULL));
  for (PetscInt i = 0; i < view->nq; i++) {
    if (dydu) dydu[d->global[i]] += scale * ldq[i];
    if (dydu) dydu[nq + d->global[i]] += scale * ldv[i];
    if (chain) dyda[d->global[i]] += scale * lda[i];
  }
  PetscFunctionReturn(0);
}

/* R = -f + Phi_q^T lambda (nq), the rows M v' - f + Phi_q^T lambda of the residual at U' = 0, complete on the rows of
   the bodies used marks: only the elements and constraints on them are evaluated */
static PetscErrorCode SensorForces(MbsModel model, PetscReal t, const PetscReal U[], const PetscBool used[], PetscReal R[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         nq = desc->nq, nc = desc->nc;
  const PetscReal *lambda = U + 2 * nq;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(R, nq));
  PetscCall(AddForces(d, FORCES_ALL, t, U, U + nq, U + 2 * nq + 2 * nc, R, used, NULL, NULL, NULL));
  for (PetscInt r = 0; r < nc; r++) {
    PetscInt b[MBS_VIEW_BODIES], nb = RowBodies(d, r, b);

    if (Marked(used, nb, b)) MbsBilinearAddGradient(desc, d->row[r], U, lambda[r], R, 1);
  }
  PetscFunctionReturn(0);
}

/* dy/dU_j -= b^T dR_v/dU_j for the first ncolumn columns (Jacobian at U' = 0), dy/dp -= b^T dR_v/dp at U' = (0, a);
   R_v the rows M v' - f + Phi_q^T lambda of the residual, J scratch of n max(n, np) */
static PetscErrorCode ChainAccelerations(MbsModel model, PetscReal t, const PetscReal U[], PetscReal Udot[], const PetscReal a[], const PetscReal b[], PetscInt ncolumn, PetscReal J[], PetscReal dydu[], PetscReal dydp[])
{
  PetscInt n = NFull(model), nq = NQ(model), np = model->np;

  PetscFunctionBeginUser;
  if (dydu) {
    PetscCall(PetscArrayzero(J, n * n));
    PetscCall(DescribedJacobian(model, t, U, Udot, 0, J));
    for (PetscInt j = 0; j < ncolumn; j++)
      for (PetscInt i = 0; i < nq; i++) dydu[j] -= b[i] * MBS_IJ(J, nq + i, j, n);
  }
  if (dydp) {
    PetscCall(PetscArrayzero(J, n * PetscMax(n, np)));
    for (PetscInt i = 0; i < nq; i++) Udot[nq + i] = a[i];
    PetscCall(DescribedJacobianP(model, t, U, Udot, J));
    for (PetscInt k = 0; k < np; k++)
      for (PetscInt i = 0; i < nq; i++) dydp[k] -= b[i] * MBS_IJ(J, nq + i, k, n);
  }
  PetscFunctionReturn(0);
}

/*
  The scratch of DescribedChannels(), allocated by the first call: z = [a; l] and w (m = nq + nc each), R (nq), U' (n,
  zero), the weights (n), one sensor's dy/dp (np), and for the augmented accelerations A (m x m), G (nc x nq), U_l (n)
  and a dense Jacobian (n x max(n, np)); the bodies the accelerometers sit on; the pivots of A's factors (3 m)
*/
typedef struct {
  PetscReal *z, *w, *R, *Udot, *weight, *dydp, *A, *G, *Ul, *J;
  PetscBool *used;
  PetscInt  *pivots;
} ChannelWork;

static PetscErrorCode ChannelWorkGet(MbsModel model, ChannelWork *work)
{
  Described *d = (Described *)model->data;
  PetscInt   n = NFull(model), nq = NQ(model), nc = NC(model), np = model->np, m = nq + nc;
  PetscInt   augmented = d->augmented ? 1 : 0;

  PetscFunctionBeginUser;
  if (!d->channel_work) PetscCall(PetscMalloc3(2 * m + nq + 2 * n + np + augmented * (m * m + nc * nq + n + n * PetscMax(n, np)), &d->channel_work, d->desc->nbody, &d->channel_used, 3 * m, &d->channel_pivots));
  work->z      = d->channel_work;
  work->w      = work->z + m;
  work->R      = work->w + m;
  work->Udot   = work->R + nq;
  work->weight = work->Udot + n;
  work->dydp   = work->weight + n;
  work->A      = work->dydp + np;
  work->G      = work->A + augmented * m * m;
  work->Ul     = work->G + augmented * nc * nq;
  work->J      = work->Ul + augmented * n;
  work->used   = d->channel_used;
  work->pivots = d->channel_pivots;
  PetscCall(PetscArrayzero(work->w, m));
  PetscCall(PetscArrayzero(work->Udot, n));
  PetscCall(PetscArrayzero(work->weight, n));
  PetscCall(PetscArrayzero(work->used, d->desc->nbody));
  PetscFunctionReturn(0);
}

/*
  The accelerations z = [a; l] of a flexible model (M singular), or of any with -accelerations_augmented, from the
  index-1 system A [a; l] = [f; -(v^T Phi_r,qq v)_r], A = [M Phi_q^T; Phi_q 0] factored in place (l = lambda on the
  exact solution, but not U's lambda); sensor names the accelerometer in the message of a singular A
*/
static PetscErrorCode AugmentedAccelerations(MbsModel model, PetscReal t, const PetscReal U[], const char sensor[], ChannelWork *work)
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         nq = desc->nq, nc = desc->nc, m = nq + nc, zero_pivot;
  const PetscReal *v = U + nq;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(work->A, m * m)); /* AugmentedMatrix() adds into A and G, which keep the last call's factors */
  PetscCall(PetscArrayzero(work->G, nc * nq));
  PetscCall(AugmentedMatrix(model, U, work->A, work->G));
  PetscCall(PetscArrayzero(work->z, m));
  PetscCall(AddForces(d, FORCES_ALL, t, U, v, U + 2 * nq + 2 * nc, work->z, NULL, NULL, NULL, NULL));
  for (PetscInt i = 0; i < nq; i++) work->z[i] = -work->z[i];
  /* s_q(v) v has the constants' terms of s_q(0) v besides v^T s_qq v (U' is zero here) */
  for (PetscInt r = 0; r < nc; r++) work->z[nq + r] = MbsBilinearRate(desc, d->row[r], work->Udot, v) - MbsBilinearRate(desc, d->row[r], v, v) + RowMotion(d, r, t, 2, NULL);
  zero_pivot = MbsDenseLUFactor(m, work->A, work->pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the system of the accelerations is singular, so sensor '%s' has no acceleration", desc->file, sensor);
  AugmentedSolve(d, m, work->A, work->pivots, 1, work->z);
  PetscFunctionReturn(0);
}

/*
  The derivatives through the augmented accelerations of sum_k w_k y_k, from g = sum_k w_k dy_k/da in w (length m,
  zero below nq): with [beta; eta] = A^-1 g (A symmetric), dy/dq += beta^T (f_q - sum_r l_r Phi_r,qq) - sum_r eta_r
  (Phi_r,qq a)^T, dy/dv += beta^T f_v - 2 sum_r eta_r (Phi_r,qq v)^T, dy/dlambda = dy/dmu = 0, dy/dp = beta^T (f_p - M_p
  a): the model's own Jacobians at U with lambda = l and U' = (0, a)
*/
static PetscErrorCode AugmentedChain(MbsModel model, PetscReal t, const PetscReal U[], ChannelWork *work, PetscReal dydu[], PetscReal dydp[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         n = NFull(model), nq = desc->nq, nc = desc->nc, m = nq + nc;
  const PetscReal *v = U + nq, *a = work->z, *l = work->z + nq, *beta = work->w, *eta = work->w + nq;

  PetscFunctionBeginUser;
  AugmentedSolve(d, m, work->A, work->pivots, 1, work->w);
  PetscCall(PetscArraycpy(work->Ul, U, n));
  PetscCall(PetscArraycpy(work->Ul + 2 * nq, l, nc));
  PetscCall(ChainAccelerations(model, t, work->Ul, work->Udot, a, beta, 2 * nq, work->J, dydu, dydp));
  for (PetscInt r = 0; r < nc && dydu; r++) {
    MbsBilinearAddRateGradient(desc, d->row[r], a, -eta[r], dydu, 1);
    MbsBilinearAddRateGradient(desc, d->row[r], v, -2 * eta[r], dydu + nq, 1);
  }
  for (PetscInt r = 0; r < nc && dydp && d->rheonomic; r++) { /* eta^T d''_p of the accelerations' rows */
    PetscReal *dddp = ParameterScratch(d);

    RowMotion(d, r, t, 2, dddp);
    for (PetscInt k = 0; k < model->np; k++) dydp[k] += eta[r] * dddp[k];
  }
  PetscFunctionReturn(0);
}

/* A reaction sensor reads y = -lambda of its constraint's row (reaction_force.c): the index of that lambda in U */
static PetscInt ReactionMultiplier(MbsDescription desc, PetscInt e)
{
  return 2 * desc->nq + desc->element[e].constraint->first_row;
}

/* The sensor element of entry k of a list of output channels (-1: the output; channel NULL: channel k) */
static PetscInt ChannelElement(Described *d, const PetscInt channel[], PetscInt k)
{
  if (!channel) return d->sensor[k];
  return channel[k] < 0 ? d->desc->output : d->sensor[channel[k]];
}

/*
  The product sink's weight^T dF/dp at (t, U, U') added into its product (DescribedChannels(): the accelerometers'
  -b^T dR_v/dp at U' = (0, a)). When the model keeps dF/dp of identified parameters that does not read U' (a gradient's,
  DescribedJacobianPCreate()) and has not kept it at (t, U), one assembly of all elements forms the product and fills the
  entry its dF/dp at (t, U) will read (SparseForm): an adjoint step of CN asks for a node's density before its dF/dp,
  and the product of the sensors' bodies alone would cost another assembly of theirs.
*/
static PetscErrorCode ChannelsAssembleP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], Sink *sink)
{
  Described  *d     = (Described *)model->data;
  SparseForm *form  = &d->jacobian_p;
  PetscBool   share = (PetscBool)(form->cached[0] && form->read && !form->point[0].rate);
  PetscInt    kept  = -1, entry;

  PetscFunctionBeginUser;
  if (share) PetscCall(SparseKeptFind(model, form, t, U, Udot, &kept));
  if (!share || kept >= 0) {
    PetscCall(AssembleP(model, t, U, Udot, sink));
    PetscFunctionReturn(0);
  }
  entry           = SparseKeptNext(model, form, t);
  sink->type      = SINK_SLOTS;
  sink->slot      = form->slot;
  sink->values    = form->cached[entry];
  sink->body_used = NULL;
  sink->cursor    = 0;
  PetscCall(PetscArrayzero(sink->values, form->nnz));
  PetscCall(AssembleP(model, t, U, Udot, sink));
  PetscCheck(sink->cursor == form->nslot, PETSC_COMM_SELF, PETSC_ERR_PLIB, "An assembly of dF/dp wrote %" PetscInt_FMT " entries, not the %" PetscInt_FMT " of its places", sink->cursor, form->nslot);
  PetscCall(PointKeySet(model, &form->point[entry], t, U, Udot));
  PetscFunctionReturn(0);
}

/*
  ops.channels (MbsModelChannelsWeighted()). The accelerometers (no flexible body) read a = v' = M^-1 (f - Phi_q^T
  lambda) of the second GGL row, a = -M^-1 R_v(t, U, U' = 0) (R_v: the rows M v' - f + Phi_q^T lambda of the
  residual), computed once for all of them on the bodies they sit on. Their derivatives are linear in dy/da: with g =
  sum_k w_k dy_k/da and b = M^-1 g (M symmetric, constant and block-diagonal, so b lives on the sensors' bodies), sum_k
  w_k dy_k/dU = sum_k w_k dy_k/dU|_a - b^T dR_v/dU (shift 0) and sum_k w_k dy_k/dp = -b^T dR_v/dp at U' = (0, a): one
  product of Assemble() and one of AssembleP() with the weight -b whatever the number of channels, each reading only
  the elements on the sensors' bodies. With a flexible body, or -accelerations_augmented, AugmentedAccelerations() and
  AugmentedChain(): lambda of U may oscillate from step to step (Crank-Nicolson leaves the algebraic variables'
  alternating error undamped), the positions and velocities do not.
*/
static PetscErrorCode DescribedChannels(MbsModel model, PetscInt nc, const PetscInt channel[], PetscReal t, const PetscReal U[], MbsChannelWeightFn weigh, void *ctx, PetscReal y[], PetscReal w[], PetscReal dydu[], PetscReal dydp[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       n = NFull(model), nq = desc->nq, np = model->np, accelerometer = -1;
  PetscBool      derivatives = (PetscBool)(w && (dydu || dydp));
  ChannelWork    work        = {NULL};
  PetscReal     *g;
  Sink           sink;
  PetscBool      held = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(ChannelWorkGet(model, &work));
  g = d->augmented ? work.w : work.weight + nq;
  for (PetscInt k = 0; k < nc; k++) {
    const MbsElement *el = &desc->element[ChannelElement(d, channel, k)];
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b);

    if (!el->ops->acceleration) continue;
    accelerometer = ChannelElement(d, channel, k);
    for (PetscInt i = 0; i < nb; i++) work.used[b[i]] = PETSC_TRUE;
  }
  if (accelerometer >= 0 && d->augmented) PetscCall(AugmentedAccelerations(model, t, U, desc->element[accelerometer].name, &work));
  else if (accelerometer >= 0) {
    PetscCall(SensorForces(model, t, U, work.used, work.R));
    for (PetscInt i = 0; i < nq; i++) work.z[i] = -work.R[i];
    PetscCall(SolveMass(d, model->p, work.z));
  }
  for (PetscInt k = 0; k < nc && y; k++) {
    PetscInt e = ChannelElement(d, channel, k);

    if (desc->element[e].constraint) y[k] = -U[ReactionMultiplier(desc, e)];
    else PetscCall(ViewSensor(model, e, U, desc->element[e].ops->acceleration ? work.z : NULL, 0, &y[k], NULL, NULL));
  }
  if (weigh) PetscCall(weigh(ctx, nc, y, w));
  if (!derivatives) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < nc; k++) {
    PetscInt          e  = ChannelElement(d, channel, k);
    const MbsElement *el = &desc->element[e];
    PetscReal         value;

    if (w[k] == 0) continue;
    if (el->constraint) {
      if (dydu) dydu[ReactionMultiplier(desc, e)] -= w[k];
      continue;
    }
    PetscCall(ViewSensor(model, e, U, el->ops->acceleration ? work.z : NULL, w[k], &value, dydu, g));
    if (dydp && el->ops->sensor_p) { /* a bushing load's y depends on its stiffness and damping, a point's on its coordinates: dy/dp on its view */
      PetscInt       b[MBS_VIEW_BODIES], nb = ElementBodies(el, b);
      PetscReal     *lq, *lv, *la = d->local + 2 * d->nlocal; /* ViewSensor() left this sensor's accelerations there */
      MbsDescription view = View(d, nb, b, U, U + nq, &lq, &lv);

      PetscCall(PetscArrayzero(work.dydp, np));
      PetscCall(el->ops->sensor_p(view, el, lq, lv, el->ops->acceleration ? la : NULL, work.dydp));
      for (PetscInt i = 0; i < np; i++) dydp[i] += w[k] * work.dydp[i];
    }
  }
  if (accelerometer < 0) PetscFunctionReturn(0);
  if (d->augmented) {
    PetscCall(AugmentedChain(model, t, U, &work, dydu, dydp));
    PetscFunctionReturn(0);
  }
  PetscCall(SolveMass(d, model->p, g));
  for (PetscInt i = 0; i < n; i++) work.weight[i] = -work.weight[i];
  sink = (Sink){.type = SINK_PRODUCT, .weight = work.weight, .body_used = work.used};
  if (dydu && d->jacobian.values0) PetscCall(PointKeyHolds(model, &d->jacobian.point[0], t, U, NULL, &held)); /* 3D only: its rows are U_full's */
  if (held) {                                                                                                 /* b^T dR_v/dU from the Jacobian assembled at this state */
    const SparseForm *J = &d->jacobian;

    for (PetscInt r = nq; r < 2 * nq; r++)
      for (PetscInt k = J->ia[r]; k < J->ia[r + 1] && work.weight[r] != 0; k++) dydu[J->ja[k]] += work.weight[r] * J->values0[k];
  } else if (dydu) {
    sink.product = dydu;
    PetscCall(Assemble(model, t, U, 0, &sink));
  }
  if (dydp) {
    for (PetscInt i = 0; i < nq; i++) work.Udot[nq + i] = work.z[i];
    sink.product = dydp;
    PetscCall(ChannelsAssembleP(model, t, U, work.Udot, &sink));
  }
  PetscFunctionReturn(0);
}

/* The value of a sensor (channel c, -1: the output) and its dy/dU, dy/dp (each may be NULL) */
static PetscErrorCode DescribedSensor(MbsModel model, PetscInt c, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[], PetscReal dydp[])
{
  PetscReal one = 1;

  PetscFunctionBeginUser;
  PetscCall(model->ops.channels(model, 1, &c, t, U, NULL, NULL, y, &one, dydu, dydp)); /* planar: PlanarChannels() */
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedOutput(MbsModel model, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensor(model, -1, t, U, y, dydu, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedOutputP(MbsModel model, PetscReal t, const PetscReal U[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensor(model, -1, t, U, NULL, NULL, dydp));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedChannelOutput(MbsModel model, PetscInt c, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensor(model, c, t, U, y, dydu, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedChannelOutputP(MbsModel model, PetscInt c, PetscReal t, const PetscReal U[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensor(model, c, t, U, NULL, NULL, dydp));
  PetscFunctionReturn(0);
}

/* Whether a sensor's value can depend on the parameters directly (DescribedChannels()'s dy/dp): one with sensor_p, or
   an accelerometer (through the masses and forces). Without one, the model has no output_p, and an adjoint gradient
   evaluates no dr/dp at its nodes (all zero) */
static PetscBool SensorsReadP(MbsDescription desc)
{
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElementType *ops = desc->element[e].ops;

    if (ops->kind == MBS_ELEMENT_SENSOR && (ops->sensor_p || ops->acceleration)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* Every sensor element is an output channel, named as the element, in the element's unit */
static PetscErrorCode DescribedChannelsSetUp(MbsModel model, Described *d)
{
  MbsDescription desc = d->desc;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(desc->nelement, &d->sensor, desc->nelement, &model->channel_name, desc->nelement, &model->channel_unit));
  model->nchannel = 0;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (desc->element[e].ops->kind != MBS_ELEMENT_SENSOR) continue;
    d->sensor[model->nchannel]           = e;
    model->channel_name[model->nchannel] = desc->element[e].name;
    model->channel_unit[model->nchannel] = desc->element[e].ops->unit;
    model->nchannel++;
  }
  PetscFunctionReturn(0);
}

/* The size of the first excitation element [N or N m], for reports */
static PetscErrorCode DescribedExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  MbsDescription desc = Description(model);

  PetscFunctionBeginUser;
  *force = 0;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];

    if (el->ops->kind != MBS_ELEMENT_EXCITATION) continue;
    *force = el->ops->law(desc, el, t, NULL); /* a law reads only the element's fields and the speed */
    break;
  }
  PetscFunctionReturn(0);
}

/* "NAME = value (file: v)" of parameter k at p, appended to the list at (len bytes), after a comma where it is not empty */
static PetscErrorCode AppendParameter(const MbsParameterInfo info[], const PetscReal p[], PetscInt k, char at[], size_t len)
{
  char one[96];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(one, sizeof(one), "%s%s = %g (file: %g)", at[0] ? ", " : "", info[k].name, (double)p[k], (double)info[k].value));
  PetscCall(MbsStrlcat(at, one, len));
  PetscFunctionReturn(0);
}

/* The parameters among the nine entries of a frame (a body's orientation, a bushing's axes), each once, listed into at */
static PetscErrorCode FrameParameters(const MbsParameterInfo info[], const PetscReal p[], const MbsValue entry[9], char at[], size_t len)
{
  PetscFunctionBeginUser;
  at[0] = 0;
  for (PetscInt k = 0; k < 9; k++) {
    PetscInt first = 0;

    while (entry[first].param != entry[k].param) first++;
    if (entry[k].param >= 0 && first == k) PetscCall(AppendParameter(info, p, entry[k].param, at, len));
  }
  PetscFunctionReturn(0);
}

/* The file's pose and velocity q_f, v_f at the parameters p (NULL: at the file's values; a body's start fields may be
   parameters, MbsBodyPoseAt()); flexible bodies undeformed (gamma = 0). An orientation that is no frame at p is refused
   as the other starts that trial parameters make impossible (ProjectPose_Private, AxesUsable): MBS_ERR_START_REFUSED */
static PetscErrorCode InitialPose(MbsDescription desc, const PetscReal p[], PetscReal q[], PetscReal v[])
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;
    char           at[256];

    for (PetscInt i = 12; i < 3 * MbsBodySlots(desc, b); i++) q[o + i] = v[o + i] = 0;
    if (!p) MbsBodyPose(body, q + o, v + o);
    else if (!MbsBodyPoseAt(body, p, q + o, v + o)) {
      PetscCall(FrameParameters(desc->param_info, p, body->start + 9, at, sizeof(at)));
      SETERRQ(PETSC_COMM_SELF, MBS_ERR_START_REFUSED, "Model file '%s', line %" PetscInt_FMT ", body '%s': its orientation at %s is no right-handed frame (the nine numbers' determinant is not positive), and mbsid's axes, their polar factor (the rotation nearest to them), need a positive determinant; keep its parameters nearer their file values (lower and upper in the parameters: section)",
              desc->file, body->line, body->name, at);
    }
  }
  PetscFunctionReturn(0);
}

/* dq_f/dp_j, dv_f/dp_j of InitialPose() at p */
static void InitialPoseDerivative(MbsDescription desc, const PetscReal p[], PetscInt j, PetscReal dq[], PetscReal dv[])
{
  for (PetscInt i = 0; i < desc->nq; i++) dq[i] = dv[i] = 0;
  for (PetscInt b = 0; b < desc->nbody; b++)
    if (desc->body[b].start_p) MbsBodyPoseDerivative(&desc->body[b], p, j, dq + desc->body[b].offset, dv + desc->body[b].offset);
}

/* Phi_q (nc x nq, column-major) at q */
static void ConstraintJacobian(MbsModel model, const PetscReal q[], PetscReal G[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);

  for (PetscInt r = 0; r < desc->nc; r++) MbsBilinearAddGradient(desc, d->row[r], q, 1, G + r, desc->nc);
}

/* The model's Phi_q at q (the 3D nq): its kept rows among the first end, *nc of them, on its free coordinates, *nq,
   into G (*nc x *nq, column-major); in 3D every row and coordinate */
static void ModelConstraintJacobian(Described *d, const PetscReal q[], PetscInt end, PetscReal G[], PetscInt *nc, PetscInt *nq)
{
  MbsDescription desc = d->desc;

  *nq = d->nq_free;
  *nc = 0;
  for (PetscInt r = 0; r < end; r++) *nc += !RowDropped(d, r);
  for (PetscInt r = 0, k = 0; r < end; r++) {
    if (RowDropped(d, r)) continue;
    for (PetscInt i = 0; i < desc->nq; i++) d->row_full[i] = 0;
    MbsBilinearAddGradient(desc, d->row[r], q, 1, d->row_full, 1);
    for (PetscInt i = 0; i < *nq; i++) G[k + i * *nc] = d->row_full[d->free[i]];
    k++;
  }
}

/* The index-1 matrix [M Phi_q^T; Phi_q 0] (m = nq + nc) at q, and Phi_q (nc x nq) into G */
static PetscErrorCode AugmentedMatrix(MbsModel model, const PetscReal q[], PetscReal A[], PetscReal G[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = nq + nc;
  Sink           sink = {.type = SINK_DENSE, .dense = A, .ld = m};

  PetscFunctionBeginUser;
  PetscCall(AddMass(d, model->p, 1, &sink, 0));
  ConstraintJacobian(model, q, G);
  for (PetscInt r = 0; r < nc; r++)
    for (PetscInt i = 0; i < nq; i++) MBS_IJ(A, nq + r, i, m) = MBS_IJ(A, i, nq + r, m) = MBS_IJ(G, r, i, nc);
  for (PetscInt e = 0; e < m && d->planar >= 0; e++) { /* a unit row and column of each pinned coordinate and dropped row */
    if (d->reduce[e < nq ? e : nq + e] >= 0) continue;
    for (PetscInt i = 0; i < m; i++) MBS_IJ(A, e, i, m) = MBS_IJ(A, i, e, m) = 0;
    MBS_IJ(A, e, e, m) = 1;
  }
  PetscFunctionReturn(0);
}

/* x := A^-1 x for nrhs columns (m = nq + nc each), A of AugmentedMatrix() factored: planar, the pinned coordinates'
   and dropped rows' entries 0 (their unit rows and columns leave the others those of the model's system) */
static void AugmentedSolve(Described *d, PetscInt m, const PetscReal A[], const PetscInt pivots[], PetscInt nrhs, PetscReal x[])
{
  PetscInt nq = d->desc->nq;

  MbsDenseLUSolve(m, A, pivots, nrhs, x);
  for (PetscInt c = 0; c < nrhs && d->planar >= 0; c++)
    for (PetscInt e = 0; e < m; e++)
      if (d->reduce[e < nq ? e : nq + e] < 0) x[e + c * m] = 0;
}

/*
  The internal states at the pose q: each state element's s(t0) (its dampers relaxed) into s (NULL: not kept) and, with
  ds, their derivative ds0/dp_j into ds, the pose moving by dq = dq0/dp_j (NULL: fixed) and the elements' points with
  p_j (j >= 0): the derivative of each element's start rule. Not the implicit function theorem on the state rows at rest, R_s ds = -R_q dq: a Maxwell stiffness of 0, a
  bound the file may allow, leaves R_s singular while the relaxed start e(q0) still moves with the pose
*/
static void StatesInitial(Described *d, const PetscReal q[], const PetscReal dq[], PetscInt j, PetscReal s[], PetscReal ds[])
{
  for (PetscInt e = 0; e < d->desc->nelement; e++) {
    const MbsElement *el = &d->desc->element[e];
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b);
    PetscReal        *lq, *ldq;
    MbsDescription    view;

    if (!el->nstate) continue;
    view = View(d, nb, b, q, dq, &lq, &ldq);
    MbsElementStates(el)->state_initial(view, el, lq, dq ? ldq : NULL, j, s ? s + el->first_state : d->state_local, ds ? ds + el->first_state : NULL);
  }
}

/* s'(t0) of each state element from its state rows, affine in s': P s' = -R(t0, q, v, s, 0), P = dR/ds' */
static PetscErrorCode StatesInitialRates(Described *d, PetscReal t0, const PetscReal q[], const PetscReal v[], const PetscReal s[], PetscReal sdot[])
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < d->desc->nelement; e++) {
    const MbsElement *el = &d->desc->element[e];
    PetscInt          ns = el->nstate, nq, ld, pivots[3 * MBS_MAX_STATE];
    PetscReal        *R, *J, *Jp, P[MBS_MAX_STATE * MBS_MAX_STATE], *x = sdot + el->first_state;

    if (!el->nstate) continue;
    PetscCall(StateEvaluate(d, e, t0, q, v, s, NULL, PETSC_TRUE, PETSC_FALSE, &nq, &R, &J, &Jp));
    ld = nq + ns;
    for (PetscInt i = 0; i < ns; i++) {
      x[i] = -R[nq + i];
      for (PetscInt j = 0; j < ns; j++) P[i + j * ns] = J[nq + i + (2 * nq + ns + j) * ld];
    }
    PetscCheck(MbsDenseLUFactor(ns, P, pivots) < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model file '%s', line %" PetscInt_FMT ": element '%s' (%s) has a singular d/ds' of its states (a damping of 0?)", d->desc->file, el->line, el->name, el->type);
    MbsDenseLUSolve(ns, P, pivots, 1, x);
  }
  PetscFunctionReturn(0);
}

/*
  The start of a model whose constraint rows move with its parameters (a joint's point_a or point_b, a distance's length:
  RowP). The file's pose q_f satisfies the joints at the file's values (DescribedCheck); at other p the start is the
  consistent pose nearest it in the kinetic metric,

    min (q - q_f)^T M (q - q_f) / 2  subject to  Phi(q, p) = 0,

  by Newton's method on its KKT system M (q - q_f) + Phi_q^T nu = 0, Phi(q, p) = 0 from (q_f, 0) (ProjectPose), with the exact matrix
  K = [M + sum_r nu_r Phi_r,qq, Phi_q^T; Phi_q, 0] (the rows' Hessians are constant). The kinetic metric, not the
  Euclidean one of the natural coordinates: those mix positions [m] with the components of unit axes [1], so a
  Euclidean nearest pose would change with the unit of length and weigh a body's position against its orientation
  arbitrarily; M weighs every coordinate in kg m^2, is the metric of the velocities' projection (ImposeMotion) and makes
  the start the one a body reaches with the least kinetic energy of the motion to it. A joint's point in ground
  coordinates keeps Phi(q_f, p) = 0: q = q_f for every p.
*/
typedef struct {
  PetscReal *K, *r, *nu, *qf, *vf, *diff;  /* K (m x m, factored at the solution), residual or step (m), nu (nc), q_f, v_f, q - q_f */
  PetscReal *q_accepted, *nu_accepted, *p; /* the continuation's last solution (nq, nc) and the parameters asked for (np) */
  PetscReal *dqf, *dvf;                    /* dq_f/dp_j, dv_f/dp_j (a body's start fields as parameters) */
  PetscInt  *pivots;
} StartWork;

static PetscErrorCode StartWorkCreate(MbsModel model, StartWork *w)
{
  PetscInt nq = NQ(model), nc = NC(model), m = nq + nc;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc7(m * m, &w->K, m, &w->r, nc, &w->nu, nq, &w->qf, nq, &w->vf, nq, &w->diff, 3 * m, &w->pivots));
  PetscCall(PetscCalloc5(nq, &w->q_accepted, nc, &w->nu_accepted, model->np, &w->p, nq, &w->dqf, nq, &w->dvf));
  PetscFunctionReturn(0);
}

static PetscErrorCode StartWorkDestroy(StartWork *w)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree7(w->K, w->r, w->nu, w->qf, w->vf, w->diff, w->pivots));
  PetscCall(PetscFree5(w->q_accepted, w->nu_accepted, w->p, w->dqf, w->dvf));
  PetscFunctionReturn(0);
}

/* K and the KKT residual r at (q, w->nu) and the model's current parameters */
static PetscErrorCode ProjectionSystem(MbsModel model, const PetscReal q[], StartWork *w)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = nq + nc;
  Sink           sink = {.type = SINK_DENSE, .dense = w->K, .ld = m};

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(w->K, m * m));
  PetscCall(PetscArrayzero(w->r, m));
  PetscCall(AddMass(d, model->p, 1, &sink, 0));
  for (PetscInt i = 0; i < nq; i++) w->diff[i] = q[i] - w->qf[i];
  AddMassTimes(desc, model->p, w->diff, w->r);
  for (PetscInt r = 0; r < nc; r++) {
    MbsBilinearAddHessian(desc, d->row[r], w->nu[r], w->K, m);
    MbsBilinearAddGradient(desc, d->row[r], q, 1, w->K + nq + r, m);
    MbsBilinearAddGradient(desc, d->row[r], q, 1, w->K + (nq + r) * m, 1);
    MbsBilinearAddGradient(desc, d->row[r], q, w->nu[r], w->r, 1);
    w->r[nq + r] = MbsBilinearValue(desc, d->row[r], q);
  }
  PetscFunctionReturn(0);
}

/* Newton's method on the KKT system at the model's current parameters from (q, w->nu); converged: its last step is
   below 1e-14 of the pose's scale (it converges quadratically: the last step bounds the error), and K is factored at
   the solution */
static PetscErrorCode ProjectionNewton(MbsModel model, PetscReal q[], StartWork *w, PetscReal qscale, PetscBool *converged)
{
  PetscInt  nq = NQ(model), nc = NC(model), m = nq + nc;
  PetscReal step = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  *converged = PETSC_FALSE;
  for (PetscInt it = 0; it <= 20; it++) {
    PetscCall(ProjectionSystem(model, q, w));
    if (MbsDenseLUFactor(m, w->K, w->pivots) >= 0) PetscFunctionReturn(0); /* singular: the joints cannot hold near q */
    if (step <= 1e-14 * qscale) {
      *converged = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
    for (PetscInt i = 0; i < m; i++) w->r[i] = -w->r[i];
    MbsDenseLUSolve(m, w->K, w->pivots, 1, w->r);
    step = 0;
    for (PetscInt i = 0; i < nq; i++) {
      q[i] += w->r[i];
      step = PetscMax(step, PetscAbsReal(w->r[i]));
    }
    for (PetscInt r = 0; r < nc; r++) w->nu[r] += w->r[nq + r];
    if (!(step < 10 * qscale)) PetscFunctionReturn(0); /* diverging (or not a number) */
  }
  PetscFunctionReturn(0);
}

/* "name = value (file: value)" of every parameter in p away from the file's value, comma-separated, into at */
static PetscErrorCode MovedParameters(MbsModel model, const PetscReal p[], char at[], size_t len)
{
  PetscFunctionBeginUser;
  at[0] = 0;
  for (PetscInt k = 0; k < model->np; k++)
    if (p[k] != model->param_info[k].value) PetscCall(AppendParameter(model->param_info, p, k, at, len));
  PetscFunctionReturn(0);
}

/* q: the start pose at the current parameters p, from the file's (w->qf, w->vf set here); w->nu its multipliers, w->K
   factored there. Newton's method from q_f converges when p is near the file's values p_f; farther, the parameters
   follow p_f + s (p - p_f) from s = 0 to 1, each step's solution the next one's start, the steps halved where Newton
   fails and doubled where it converges. */
static PetscErrorCode ProjectPose_Private(MbsModel model, PetscReal q[], StartWork *w)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, np = model->np;
  PetscReal      qscale = 1, s = 0, ds = 1;
  PetscBool      converged;

  PetscFunctionBeginUser;
  PetscCall(InitialPose(desc, NULL, w->qf, w->vf));
  for (PetscInt i = 0; i < nq; i++) qscale = PetscMax(qscale, PetscAbsReal(w->qf[i]));
  PetscCall(PetscArraycpy(w->q_accepted, w->qf, nq));
  PetscCall(PetscArrayzero(w->nu_accepted, nc));
  while (s < 1) {
    PetscReal next = PetscMin(1, s + ds);

    for (PetscInt j = 0; j < np; j++) model->p[j] = model->param_info[j].value + next * (w->p[j] - model->param_info[j].value);
    if (next == 1) PetscCall(PetscArraycpy(model->p, w->p, np)); /* exactly */
    PetscCall(InitialPose(desc, model->p, w->qf, w->vf));        /* the file's state moves with a body's start parameters */
    PetscCall(PetscArraycpy(q, w->q_accepted, nq));
    PetscCall(PetscArraycpy(w->nu, w->nu_accepted, nc));
    PetscCall(ProjectionNewton(model, q, w, qscale, &converged));
    if (converged) {
      s = next;
      ds *= 2;
      PetscCall(PetscArraycpy(w->q_accepted, q, nq));
      PetscCall(PetscArraycpy(w->nu_accepted, w->nu, nc));
    } else ds /= 2;
    if (ds < 1e-3) {
      char at[256];

      PetscCall(MovedParameters(model, w->p, at, sizeof(at)));
      SETERRQ(PETSC_COMM_SELF, MBS_ERR_START_REFUSED, "Model file '%s': no pose satisfies the joints near the file's pose at %s (the nearest pose, followed from the file's values, stopped %g of the way); the parameters moved the joints too far from it",
              desc->file, at, (double)s);
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ProjectPose(MbsModel model, PetscReal q[], StartWork *w)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(w->p, model->p, model->np));
  MbsCallCleanup(ProjectPose_Private(model, q, w), PetscArraycpy(model->p, w->p, model->np));
  PetscFunctionReturn(0);
}

/*
  Refuses an axis that its parameters turned (nearly) onto the coordinate axis its normals are built from: they are
  divided by the distance between the two (MbsJointAxisBranchDistance()), 1 at the file's values for a joint along a
  coordinate axis and never below 0.8 there, so 1e-6 is a turn of some 55 degrees or more that ends within 1e-6 rad of it;
  and a bushing's axes whose entries at the parameters are no right-handed frame, which has no nearest rotation
  (MbsBushingRows())
*/
static PetscErrorCode AxesUsable(MbsModel model)
{
  MbsDescription desc        = Description(model);
  const char     axis_name[] = "xyz";

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];
    char              at[256];

    if (el->nframe && !el->frame_ok) {
      const PetscReal *A = el->frame_A;

      PetscCall(FrameParameters(model->param_info, model->p, el->frame, at, sizeof(at)));
      SETERRQ(PETSC_COMM_SELF, MBS_ERR_START_REFUSED, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): its axes [[%g, %g, %g], [%g, %g, %g], [%g, %g, %g]] at %s are no right-handed frame (determinant not positive), and the frame, their polar factor (the rotation nearest to them), needs a positive determinant: keep the parameters of its axes where the axes stay right-handed (bounds in the file's parameters: section)",
              desc->file, el->line, el->name, el->type, (double)A[0], (double)A[1], (double)A[2], (double)A[3], (double)A[4], (double)A[5], (double)A[6], (double)A[7], (double)A[8], at);
    }
    if (MbsJointAxisBranchDistance(desc, el) >= 1e-6) continue;
    PetscCall(MovedParameters(model, model->p, at, sizeof(at)));
    SETERRQ(PETSC_COMM_SELF, MBS_ERR_START_REFUSED, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): its axis (%g, %g, %g) at %s lies along the %c axis of %s, from which the element builds the axis' normals (chosen at the file's axis, so that they follow the parameters smoothly): keep the axis' parameters nearer the file's values (bounds in the file's parameters: section)",
            desc->file, el->line, el->name, el->type, (double)el->axis_at[0], (double)el->axis_at[1], (double)el->axis_at[2], at, axis_name[el->axis_k], el->body[0] == MBS_GROUND ? "the ground" : desc->body[el->body[0]].name);
  }
  PetscFunctionReturn(0);
}

/* The start pose and velocities at the current parameters before the velocities' projection: the file's, the pose
   moved by ProjectPose when a parameter moves the joints */
static PetscErrorCode StartPose(MbsModel model, PetscReal q[], PetscReal v[])
{
  Described *d = (Described *)model->data;
  StartWork  w;

  PetscFunctionBeginUser;
  PetscCall(AxesUsable(model));
  PetscCall(InitialPose(Description(model), model->p, q, v));
  if (!d->moves_pose) PetscFunctionReturn(0);
  PetscCall(StartWorkCreate(model, &w));
  MbsCallCleanup(ProjectPose(model, q, &w), StartWorkDestroy(&w));
  PetscFunctionReturn(0);
}

/*
  The initial velocities of a model with prescribed motions or joints that move with the parameters: the rows
  Phi(q0) = d(t0) must hold at the start t0 (d is zero at the file's t0), and the file's velocities v_f get the impulse
  that changes them least in the kinetic metric so that Phi_q v = d'(t0): [M Phi_q^T; Phi_q 0] [v - v_f; iota] =
  [0; d'(t0) - Phi_q v_f] (A factored); iota into b + nq.
*/
static PetscErrorCode ImposeMotion(MbsModel model, PetscReal t0, const PetscReal A[], const PetscInt pivots[], PetscReal U[], PetscReal b[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = d->desc;
  PetscInt       nq = desc->nq, nc = desc->nc;
  PetscReal      qscale = 1;
  char           owner[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nq; i++) qscale = PetscMax(qscale, PetscAbsReal(U[i]));
  for (PetscInt r = 0; r < nc; r++) {
    PetscReal phi = MbsBilinearValue(desc, d->row[r], U) - RowMotion(d, r, t0, 0, NULL);

    if (PetscAbsReal(phi) > 1e-9 * qscale) {
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: at the start t0 = %g s the prescribed motion has moved the point by %g m from the initial pose, where its law starts (the file's t0 = %g s); start at the file's t0 or give a law that is back at its start", owner, (double)t0, (double)-phi,
              (double)desc->t0);
    }
  }
  for (PetscInt i = 0; i < nq; i++) b[i] = 0;
  for (PetscInt r = 0; r < nc; r++) b[nq + r] = RowMotion(d, r, t0, 1, NULL) - MbsBilinearRate(desc, d->row[r], U, U + nq);
  AugmentedSolve(d, nq + nc, A, pivots, 1, b);
  for (PetscInt i = 0; i < nq; i++) U[nq + i] += b[i];
  PetscFunctionReturn(0);
}

/*
  Consistent U(t0), U'(t0): the file's pose and velocity (moved onto joints that move with p: StartPose; with those or
  prescribed motions the velocities projected: ImposeMotion), mu = 0, the internal
  states s(t0) of the elements (StatesInitial) and their rates, and (v', lambda) of the index-1 system [M Phi_q^T; Phi_q 0] [v'; lambda] = [f; -(Phi_q v)_q v + d''(t0)].
*/
static PetscErrorCode DescribedInitialState_Private(MbsModel model, PetscReal t0, PetscReal U[], PetscReal Udot[], PetscReal A[], PetscReal b[], PetscReal G[], PetscReal zero[], PetscInt pivots[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = nq + nc, zero_pivot;

  PetscFunctionBeginUser;
  PetscCall(StartPose(model, U, U + nq));
  PetscCall(AugmentedMatrix(model, U, A, G));
  zero_pivot = MbsDenseLUFactor(m, A, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the system of the initial accelerations is singular (zero pivot in column %" PetscInt_FMT ")", desc->file, zero_pivot);
  if (d->rheonomic || d->joint_geometry || d->start_p) PetscCall(ImposeMotion(model, t0, A, pivots, U, b));
  StatesInitial(d, U, NULL, -1, U + 2 * m, NULL); /* after ImposeMotion: the states' rates see the start velocities */
  PetscCall(StatesInitialRates(d, t0, U, U + nq, U + 2 * m, Udot + 2 * m));
  PetscCall(PetscArrayzero(b, m));
  PetscCall(AddForces(d, FORCES_ALL, t0, U, U + nq, U + 2 * m, b, NULL, NULL, NULL, NULL));
  for (PetscInt i = 0; i < nq; i++) b[i] = -b[i];
  /* (Phi_q v)_q v = v^T Phi_qq v: s_q(v) v holds the constants' terms s_q(0) v besides it */
  for (PetscInt r = 0; r < nc; r++) b[nq + r] = MbsBilinearRate(desc, d->row[r], zero, U + nq) - MbsBilinearRate(desc, d->row[r], U + nq, U + nq) + RowMotion(d, r, t0, 2, NULL);
  AugmentedSolve(d, m, A, pivots, 1, b);
  for (PetscInt i = 0; i < nq; i++) {
    Udot[i]      = U[nq + i];
    Udot[nq + i] = b[i];
  }
  for (PetscInt r = 0; r < nc; r++) U[2 * nq + r] = b[nq + r];
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedInitialState(MbsModel model, PetscReal t0, PetscReal U[], PetscReal Udot[])
{
  PetscInt   nq = NQ(model), nc = NC(model), m = nq + nc;
  PetscReal *A, *b, *G, *zero;
  PetscInt  *pivots;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc5(m * m, &A, m, &b, nc * nq, &G, nq, &zero, 3 * m, &pivots));
  MbsCallCleanup(DescribedInitialState_Private(model, t0, U, Udot, A, b, G, zero, pivots), PetscFree5(A, b, G, zero, pivots));
  PetscFunctionReturn(0);
}

/*
  dU(t0)/dp. The pose q0 moves with p_j where the joints do and where the file's state q_f itself does (a body's start
  position or orientation, doc/model-files.md "The initial state as parameters"; StartPose): the KKT system of the
  projection, differentiated (implicit function theorem, K factored at the solution),
    K [dq/dp_j; dnu/dp_j] = -[M_j (q - q_f) - M dq_f/dp_j + sum_r nu_r grad s_r; s_r(q)],   s_r = dPhi_r/dp_j (RowP).
  The velocities v0 = v_f + the impulse of ImposeMotion move with the prescribed motions' d'(t0), the masses (its
  kinetic metric), the file's velocities (dv_f/dp_j: a start velocity, angular velocity or orientation) and the
  moving Phi_q (dPhi_r,q = Phi_r,qq dq + grad s_r):
    A [dv/dp_j; .] = [-M_j (v - v_f) + M dv_f/dp_j - sum_r iota_r dPhi_r,q; d'_p(t0) - dPhi_q v],   A = [M Phi_q^T; Phi_q 0].
  lambda(t0) through the index-1 system, differentiated:
    A [dv'/dp; dlambda/dp] = [-(rows v of dF/dp) - (rows v of dF/dv) dv/dp - (rows v of dF/dq) dq/dp - (rows v of dF/ds) ds/dp;
                              -2 (Phi_r,qq v)^T dv/dp - (Phi_r,qq v')^T dq/dp + d''_p(t0) - s_r,q v' - v^T s_r,qq v]
  at U(t0), U'(t0), where the rows v of dF/dp hold s_q^T lambda_r of a moving joint (AddJointRowsP) and those of dF/dq
  sum_r lambda_r Phi_r,qq. The internal states start at rest at the pose (StatesInitial), so with a moving pose they
  move too, and with their own points: ds/dp_j = ds0/dq dq/dp_j + ds0/dp_j (StatesInitial).
*/
typedef struct {
  PetscReal *rate, *accel, *dq, *dv, *impulse, *h, *g, *vdiff, *iota, *dddp, *ds; /* d'_p, d''_p (nc x np), nq, nq, m, nq, nq, nq, nc, np, ns */
} StartDerivativeWork;

/* dq0/dp_j of the start pose q that ProjectPose() left w at (K factored there, nu, q - q_f) into dq: the projection's KKT
   system differentiated; zero where no parameter moves the pose */
static void PoseDerivative(MbsModel model, PetscInt j, const PetscReal q[], StartWork *w, PetscReal dq[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = d->desc;
  PetscInt       nq = desc->nq, nc = desc->nc, m = nq + nc;

  for (PetscInt i = 0; i < nq; i++) dq[i] = 0;
  if (!d->moves_pose) return;
  for (PetscInt i = 0; i < m; i++) w->r[i] = 0;
  AddMassDerivativeTimes(desc, j, w->diff, w->r);
  for (PetscInt r = 0; r < nc; r++) {
    MbsBilinear drow;

    if (!RowP(d, desc, r, j, &drow)) continue;
    MbsBilinearAddGradient(desc, &drow, q, w->nu[r], w->r, 1);
    w->r[nq + r] = MbsBilinearValue(desc, &drow, q);
  }
  for (PetscInt i = 0; i < m; i++) w->r[i] = -w->r[i];
  AddMassTimes(desc, model->p, w->dqf, w->r); /* the file's pose moves: + M dq_f/dp_j */
  MbsDenseLUSolve(m, w->K, w->pivots, 1, w->r);
  for (PetscInt i = 0; i < nq; i++) dq[i] = w->r[i];
}

/* dPhi_r,q along dq plus grad s_r (s_r = dPhi_r/dp_j, when p_j moves row r) at q into g (nq); whether it is non-zero */
static PetscBool RowGradientP(Described *d, PetscInt r, PetscInt j, const PetscReal q[], const PetscReal dq[], PetscReal g[])
{
  MbsDescription desc = d->desc;
  MbsBilinear    drow;
  PetscBool      moved = (PetscBool)(d->joint_geometry && RowP(d, desc, r, j, &drow));

  for (PetscInt i = 0; i < desc->nq; i++) g[i] = 0;
  if (d->moves_pose) MbsBilinearAddRateGradient(desc, d->row[r], dq, 1, g, 1);
  if (moved) MbsBilinearAddGradient(desc, &drow, q, 1, g, 1);
  return (PetscBool)(moved || d->moves_pose);
}

/* Whether the start moves with the parameters beyond dF/dp: prescribed motions, joints or Maxwell states that follow
   them, a body's start itself (DescribedInitialStateP_Private needs dF/dU there) */
static PetscBool StartMoves(const Described *d)
{
  return (PetscBool)(d->rheonomic || d->joint_geometry || d->state_geometry || d->start_p);
}

static PetscErrorCode DescribedInitialStateP_Private(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscReal dUdp[], PetscReal A[], PetscReal G[], PetscReal Jp[], PetscInt pivots[], PetscReal J[], StartDerivativeWork *x, StartWork *w)
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         n = NFull(model), np = model->np, nq = desc->nq, nc = desc->nc, ns = desc->ns, m = nq + nc, zero_pivot;
  PetscBool        moving = StartMoves(d);
  const PetscReal *q = U, *v = U + nq;

  PetscFunctionBeginUser;
  if (d->moves_pose) PetscCall(ProjectPose(model, x->h, w)); /* nu and K at the start pose U (x->h: scratch) */
  PetscCall(AugmentedMatrix(model, U, A, G));
  PetscCall(DescribedJacobianP(model, t0, U, Udot, Jp)); /* U_full's: not the model's op */
  zero_pivot = MbsDenseLUFactor(m, A, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the system of the initial accelerations is singular", desc->file);
  if (moving) {
    PetscCall(InitialPose(desc, model->p, w->qf, w->vf));
    for (PetscInt i = 0; i < m; i++) x->impulse[i] = 0; /* iota of ImposeMotion, again */
    for (PetscInt r = 0; r < nc; r++) x->impulse[nq + r] = RowMotion(d, r, t0, 1, NULL) - MbsBilinearRate(desc, d->row[r], q, w->vf);
    AugmentedSolve(d, m, A, pivots, 1, x->impulse);
    for (PetscInt r = 0; r < nc; r++) x->iota[r] = x->impulse[nq + r];
    for (PetscInt i = 0; i < nq; i++) x->vdiff[i] = v[i] - w->vf[i];
    PetscCall(DescribedJacobian(model, t0, U, Udot, 0, J));
    for (PetscInt r = 0; r < nc; r++) {
      RowMotion(d, r, t0, 1, x->dddp);
      for (PetscInt j = 0; j < np; j++) x->rate[r + j * nc] = x->dddp[j];
      RowMotion(d, r, t0, 2, x->dddp);
      for (PetscInt j = 0; j < np; j++) x->accel[r + j * nc] = x->dddp[j];
    }
  }
  for (PetscInt j = 0; j < np; j++) {
    PetscReal *column = dUdp + j * n + nq; /* scratch: rows nq .. nq + m - 1 of column j, then moved to lambda */

    for (PetscInt i = 0; i < nq; i++) x->dv[i] = 0;
    InitialPoseDerivative(desc, model->p, j, w->dqf, w->dvf);
    PoseDerivative(model, j, q, w, x->dq);
    if (ns && moving) StatesInitial(d, q, d->moves_pose ? x->dq : NULL, j, NULL, x->ds);
    if (moving) { /* the velocities */
      for (PetscInt i = 0; i < m; i++) x->impulse[i] = i < nq ? 0 : x->rate[i - nq + j * nc];
      AddMassDerivativeTimes(desc, j, x->vdiff, x->impulse);
      for (PetscInt i = 0; i < nq; i++) x->impulse[i] = -x->impulse[i];
      AddMassTimes(desc, model->p, w->dvf, x->impulse); /* the file's velocities move: + M dv_f/dp_j */
      for (PetscInt r = 0; r < nc; r++) {
        PetscReal dot = 0;

        if (!RowGradientP(d, r, j, q, x->dq, x->g)) continue;
        for (PetscInt i = 0; i < nq; i++) {
          x->impulse[i] -= x->iota[r] * x->g[i];
          dot += x->g[i] * v[i];
        }
        x->impulse[nq + r] -= dot;
      }
      AugmentedSolve(d, m, A, pivots, 1, x->impulse);
      for (PetscInt i = 0; i < nq; i++) x->dv[i] = x->impulse[i];
    }
    for (PetscInt i = 0; i < m; i++) column[i] = i < nq ? -MBS_IJ(Jp, nq + i, j, n) : 0;
    if (moving) {
      for (PetscInt i = 0; i < nq; i++) {
        for (PetscInt k = 0; k < nq; k++) column[i] -= MBS_IJ(J, nq + i, nq + k, n) * x->dv[k] + MBS_IJ(J, nq + i, k, n) * x->dq[k];
        for (PetscInt k = 0; k < ns; k++) column[i] -= MBS_IJ(J, nq + i, 2 * m + k, n) * x->ds[k];
      }
      for (PetscInt r = 0; r < nc; r++) {
        PetscReal dot = 0;

        for (PetscInt i = 0; i < nq; i++) x->h[i] = x->g[i] = 0;
        MbsBilinearAddRateGradient(desc, d->row[r], v, 2, x->h, 1);
        MbsBilinearAddRateGradient(desc, d->row[r], Udot + nq, 1, x->g, 1);
        for (PetscInt i = 0; i < nq; i++) dot += x->h[i] * x->dv[i] + x->g[i] * x->dq[i];
        column[nq + r] = -dot + x->accel[r + j * nc];
      }
    }
    for (PetscInt r = 0; r < nc && d->joint_geometry; r++) {
      MbsBilinear drow;
      PetscReal   curvature = 0;

      if (!RowP(d, desc, r, j, &drow)) continue;
      for (PetscInt i = 0; i < nq; i++) x->h[i] = 0;
      MbsBilinearAddRateGradient(desc, &drow, v, 1, x->h, 1);
      for (PetscInt i = 0; i < nq; i++) curvature += x->h[i] * v[i];
      column[nq + r] -= MbsBilinearRate(desc, &drow, q, Udot + nq) + curvature;
    }
    AugmentedSolve(d, m, A, pivots, 1, column);
    for (PetscInt r = 0; r < nc; r++) dUdp[j * n + 2 * nq + r] = column[nq + r];
    for (PetscInt k = 0; k < ns && moving; k++) dUdp[j * n + 2 * m + k] = x->ds[k];
    for (PetscInt i = 0; i < nq; i++) {
      dUdp[j * n + i] = x->dq[i];
      column[i]       = x->dv[i];
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedInitialStateP(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscReal dUdp[])
{
  Described          *d  = (Described *)model->data;
  PetscInt            nq = NQ(model), nc = NC(model), m = nq + nc, n = NFull(model), np = model->np, nJ = StartMoves(d) ? n * n : 0;
  PetscReal          *A, *G, *Jp, *J, *work;
  PetscInt           *pivots;
  StartDerivativeWork x;
  StartWork           w;
  PetscErrorCode      ierr;

  PetscFunctionBeginUser;
  PetscCall(StartWorkCreate(model, &w));
  PetscCall(PetscCalloc6(m * m, &A, nc * nq, &G, n * np, &Jp, 3 * m, &pivots, nJ, &J, 2 * nc * np + 5 * nq + m + nc + np + d->desc->ns, &work));
  x.rate    = work;
  x.accel   = x.rate + nc * np;
  x.dq      = x.accel + nc * np;
  x.dv      = x.dq + nq;
  x.impulse = x.dv + nq;
  x.h       = x.impulse + m;
  x.g       = x.h + nq;
  x.vdiff   = x.g + nq;
  x.iota    = x.vdiff + nq;
  x.dddp    = x.iota + nc;
  x.ds      = x.dddp + np;
  ierr      = DescribedInitialStateP_Private(model, t0, U, Udot, dUdp, A, G, Jp, pivots, J, &x, &w);
  PetscCall(PetscFree6(A, G, Jp, pivots, J, work));
  PetscCall(StartWorkDestroy(&w));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*
  The second derivatives of state element e (MbsElementStateSecondFn) along S, parameter j, into the sink at the rows
  and columns of U = (q, v, lambda, mu, s): its force rows are U's rows M v' - f, its state rows and columns U's s
*/
static PetscErrorCode StateSecond(Described *d, PetscInt e, PetscReal t, const PetscReal U[], const PetscReal S[], PetscInt j, PetscReal shift, Sink *sink, PetscReal work[])
{
  MbsDescription    desc = d->desc;
  const MbsElement *el   = &desc->element[e];
  PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), ns = el->nstate, nq = desc->nq, s0 = 2 * nq + 2 * desc->nc + el->first_state, L = d->nlocal + MBS_MAX_STATE;
  PetscInt         *rows = d->index, *cols = d->index + d->nlocal, sindex[MBS_MAX_STATE], m, ld;
  PetscReal        *ls = d->state_local, *lss = ls + MBS_MAX_STATE, *lsq = lss + MBS_MAX_STATE, *lsv = lsq + L, *D = lsv + L, *lq, *lv;
  MbsDescription    view;

  PetscFunctionBeginUser;
  /* in d->state_local: s, ss, sq, sv and D (ld x (2 m + ns) <= 2 L^2) before SinkAddPart's part (np >= 1 here) */
  view = View(d, nb, b, U, U + nq, &lq, &lv);
  m    = view->nq;
  ld   = m + ns;
  for (PetscInt i = 0; i < m; i++) {
    lsq[i] = S[d->global[i]];
    lsv[i] = S[nq + d->global[i]];
  }
  for (PetscInt k = 0; k < ns; k++) {
    ls[k]     = U[s0 + k];
    lss[k]    = S[s0 + k];
    sindex[k] = s0 + k;
  }
  PetscCall(PetscArrayzero(D, ld * (2 * m + ns)));
  PetscCall(MbsElementStates(el)->state_second(view, el, t, lq, lv, ls, lsq, lsv, lss, j, shift, D, work));
  PetscCall(SinkAddPart(d, sink, m, Shifted(d, m, nq, rows), m, Shifted(d, m, 0, cols), D, ld, 0, 0, 1));
  PetscCall(SinkAddPart(d, sink, m, Shifted(d, m, nq, rows), m, Shifted(d, m, nq, cols), D, ld, 0, m, 1));
  PetscCall(SinkAddPart(d, sink, m, Shifted(d, m, nq, rows), ns, sindex, D, ld, 0, 2 * m, 1));
  PetscCall(SinkAddPart(d, sink, ns, sindex, m, Shifted(d, m, 0, cols), D, ld, m, 0, 1));
  PetscCall(SinkAddPart(d, sink, ns, sindex, m, Shifted(d, m, nq, cols), D, ld, m, m, 1));
  PetscCall(SinkAddPart(d, sink, ns, sindex, ns, sindex, D, ld, m, 2 * m, 1));
  PetscFunctionReturn(0);
}

/*
  The tangent of the consistent start (ops.initial_state_tangent) for quantities that enter the rows M v' - f (r_v:
  dF/dtheta there) and the time derivatives of the rows Phi_q v (r_c, rows 2 nq .. 2 nq + nc of r: the derivative by
  theta of Phi_q v' + (Phi_q v)_q v - d'' at fixed v'), zero in the other rows: the pose, velocities, mu and the
  internal states stay, and the index-1 system of DescribedInitialState gives A [dv'; dlambda] = [-r_v; -r_c].
*/
static PetscErrorCode DescribedInitialStateTangent_Private(MbsModel model, const PetscReal U[], PetscInt ncol, const PetscReal r[], PetscReal dU[], PetscReal dUdot[], PetscReal A[], PetscReal G[], PetscReal b[], PetscInt pivots[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       n = NFull(model), nq = desc->nq, nc = desc->nc, m = nq + nc, zero_pivot;

  PetscFunctionBeginUser;
  PetscCall(AugmentedMatrix(model, U, A, G));
  zero_pivot = MbsDenseLUFactor(m, A, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the system of the initial accelerations is singular", desc->file);
  PetscCall(PetscArrayzero(dU, n * ncol));
  PetscCall(PetscArrayzero(dUdot, n * ncol));
  for (PetscInt c = 0; c < ncol; c++) {
    const PetscReal *rc = r + c * n;

    for (PetscInt i = 0; i < n; i++)
      PetscCheck(rc[i] == 0 || (i >= nq && i < 2 * nq + nc), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Model file '%s': the start's tangent takes quantities of the force rows and the velocity constraints' rates alone, but row %" PetscInt_FMT " moves", desc->file, i);
    for (PetscInt i = 0; i < m; i++) b[i] = -rc[nq + i];
    AugmentedSolve(d, m, A, pivots, 1, b);
    for (PetscInt i = 0; i < nq; i++) dUdot[c * n + nq + i] = b[i];
    for (PetscInt k = 0; k < nc; k++) dU[c * n + 2 * nq + k] = b[nq + k];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedInitialStateTangent(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscInt ncol, const PetscReal r[], PetscReal dU[], PetscReal dUdot[])
{
  PetscInt   nq = NQ(model), nc = NC(model), m = nq + nc;
  PetscReal *A, *G, *b;
  PetscInt  *pivots;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc4(m * m, &A, nc * nq, &G, m, &b, 3 * m, &pivots));
  MbsCallCleanup(DescribedInitialStateTangent_Private(model, U, ncol, r, dU, dUdot, A, G, b, pivots), PetscFree4(A, G, b, pivots));
  PetscFunctionReturn(0);
}

/* B = -dF/dF_in of the force with input: true (ops.input_direction): its residual rows -f at a unit law, since f is
   linear in the law (force.c: f = P^T e F(t)) */
/* The force of el, a force with input: true, at a unit input and no control, on its view (its *m coordinates, the
   view's d->global) into *lF (scratch of the view) */
static PetscErrorCode UnitInputForce(MbsModel model, MbsElement *el, PetscReal t, const PetscReal U[], PetscInt *m, PetscReal **lF)
{
  Described      *d         = (Described *)model->data;
  MbsDescription  desc      = Description(model);
  const MbsInput *input     = el->input;
  PetscReal       unit_t[2] = {0, 1}, unit_F[2] = {1, 1}, control = el->control, *lq, *lv;
  MbsInput        unit = {.type = MBS_INPUT_NODAL, .n = 2, .t = unit_t, .F = unit_F}; /* F = 1 at every time: the end values hold outside */
  PetscInt        b[MBS_VIEW_BODIES], nb = ElementBodies(el, b);
  MbsDescription  view = View(d, nb, b, U, U + desc->nq, &lq, &lv);
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  *m  = view->nq;
  *lF = d->local + 3 * d->nlocal;
  PetscCall(PetscArrayzero(*lF, view->nq));
  el->input   = &unit;
  el->control = 0;
  ierr        = el->ops->force(view, el, t, lq, lv, *lF, NULL, NULL, NULL, view->nq);
  el->input   = input;
  el->control = control;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedInputDirection(MbsModel model, PetscReal t, const PetscReal U[], PetscReal B[])
{
  Described *d  = (Described *)model->data;
  PetscInt   nq = NQ(model), m;
  PetscReal *lF;

  PetscFunctionBeginUser;
  PetscCall(UnitInputForce(model, d->input_element, t, U, &m, &lF));
  for (PetscInt i = 0; i < m; i++) B[nq + d->global[i]] -= lF[i];
  PetscFunctionReturn(0);
}

/*
  A constraint row r's block of D_j on its view (m coordinates, the view's d->global): with H (m x m), a and w (m),
    rows q' - v:     x_mu H (columns q),       a (column mu_r)
    rows M v' - f:   x_lambda H (columns q),   a (column lambda_r)
    row Phi_r,q v:   w^T (columns q),          a^T (columns v)
    row Phi_r:       a^T (columns q)
  Hs: m x m scratch
*/
static PetscErrorCode AddRowSecond(Described *d, Sink *sink, PetscInt r, PetscInt m, const PetscReal H[], PetscReal x_mu, PetscReal x_lambda, const PetscReal a[], const PetscReal w[], PetscReal Hs[])
{
  PetscInt nq = d->desc->nq, nc = d->desc->nc, *rows = d->index, *cols = d->index + d->nlocal, lambda_col = 2 * nq + r, mu_col = 2 * nq + nc + r, phi_row[2] = {2 * nq + r, 2 * nq + nc + r};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m * m; i++) Hs[i] = x_mu * H[i];
  PetscCall(SinkAdd(sink, m, Shifted(d, m, 0, rows), m, Shifted(d, m, 0, cols), Hs));
  PetscCall(SinkAdd(sink, m, rows, 1, &mu_col, a));
  for (PetscInt i = 0; i < m * m; i++) Hs[i] = x_lambda * H[i];
  PetscCall(SinkAdd(sink, m, Shifted(d, m, nq, rows), m, cols, Hs));
  PetscCall(SinkAdd(sink, m, rows, 1, &lambda_col, a));
  PetscCall(SinkAdd(sink, 1, &phi_row[0], m, cols, w));
  PetscCall(SinkAdd(sink, 1, &phi_row[1], m, cols, a));
  PetscCall(SinkAdd(sink, 1, &phi_row[0], m, Shifted(d, m, nq, cols), a));
  PetscFunctionReturn(0);
}

/*
  The second derivatives of the sensitivity equations (ops.jacobian_sensitivity, sensitivity.c): along S = (Sq, Sv,
  Slambda, Smu) and parameter j, D_j = d/dU (dF/dU S + dF/dU' S' + dF/dp_j) + shift d/dU' (...), entity by entity.
  dF/dU' is constant, so S' enters nowhere; dF/dp_j holds dM/dp_j v', whence shift dM/dp_j in the rows M v' - f. Each
  force element (and flexible body) gives the derivatives of -df/dq and -df/dv along (Sq, Sv, e_j)
  (MbsElementForceSecondFn) in those rows. Each constraint row r, with its constant Hessian H_r, gives
    rows q' - v:     Smu_r H_r (columns q),      H_r Sq (column mu_r)
    rows M v' - f:   Slambda_r H_r (columns q),  H_r Sq (column lambda_r)
    row Phi_r,q v:   (H_r Sv)^T (columns q),     (H_r Sq)^T (columns v)
    row Phi_r:       (H_r Sq)^T (columns q)
  and, when p_j moves its joint's point (RowP: s = dPhi_r/dp_j), the derivatives of its share of dF/dp_j
    rows q' - v:     mu_r s_qq (columns q),      s_q (column mu_r)
    rows M v' - f:   lambda_r s_qq (columns q),  s_q (column lambda_r)
    row Phi_r,q v:   (s_qq v)^T (columns q),     s_q^T (columns v)
    row Phi_r:       s_q^T (columns q)
  The force elements are those of set (FORCES_ALL for design; FORCES_STATE for the linearisation, which leaves out
  the excitations, DescribedLinearizeAlong()). work: 2 L + 2 L^2 + MBS_SECOND_WORK(L), L the most coordinates of a view.
*/
static PetscErrorCode DescribedJacobianSensitivity_Private(MbsModel model, ForceSet set, PetscReal t, const PetscReal U[], const PetscReal S[], PetscInt j, PetscReal shift, PetscReal D[], PetscReal work[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         nq = desc->nq, nc = desc->nc, L = d->nlocal, *rows = d->index, *cols = d->index + L;
  PetscReal       *lsq = work, *lsv = lsq + L, *Dq = lsv + L, *Dv = Dq + L * L, *element_work = Dv + L * L;
  const PetscReal *q = U, *v = U + nq, *lambda = U + 2 * nq, *mu = U + 2 * nq + nc, *Slambda = S + 2 * nq, *Smu = S + 2 * nq + nc;
  Sink             sink = {.type = SINK_DENSE, .dense = D, .ld = NFull(model)};

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = nq + body->offset, m;
    MbsDescription view;
    PetscReal     *lq, *lv;

    for (PetscInt k = 0; k < 3 && body->mass.param == j; k++) D[(o + k) * (1 + NFull(model))] += shift;
    for (PetscInt moment = 0; moment < 6 && body->rigid && !body->flexible; moment++) {
      PetscReal dJ[9];

      if (body->moment[moment].param < 0 || body->moment[moment].param != j) continue;
      MbsBodyJbar(body, NULL, moment, dJ);
      for (PetscInt a = 0; a < 3; a++)
        for (PetscInt c = 0; c < 3; c++)
          for (PetscInt k = 0; k < 3; k++) D[(o + 3 + 3 * a + k) + (o + 3 + 3 * c + k) * NFull(model)] += shift * dJ[3 * a + c];
    }
    if (!body->flexible) continue;
    view = View(d, 1, &b, q, v, &lq, &lv);
    m    = view->nq;
    PetscCall(PetscArrayzero(Dv, m * m));
    MbsFlexibleForceSecond(view, b, j, Dv, m);
    PetscCall(SinkAdd(&sink, m, Shifted(d, m, nq, rows), m, Shifted(d, m, nq, cols), Dv));
  }
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), m;
    MbsDescription    view;
    PetscReal        *lq, *lv;

    if (!((el->ops->kind == MBS_ELEMENT_FORCE && (set & FORCES_STATE)) || (el->ops->kind == MBS_ELEMENT_EXCITATION && (set & FORCES_EXCITATION)))) continue;
    if (el->nstate) {
      PetscCall(StateSecond(d, e, t, U, S, j, shift, &sink, element_work));
      continue;
    }
    PetscCheck(el->ops->force_second, model->comm, PETSC_ERR_SUP, "Model file '%s', element '%s' (line %" PetscInt_FMT "): type %s provides no second derivatives, which the sensitivity system of optimal input design needs", desc->file, el->name, el->line, el->type);
    view = View(d, nb, b, q, v, &lq, &lv);
    m    = view->nq;
    for (PetscInt i = 0; i < m; i++) {
      lsq[i] = S[d->global[i]];
      lsv[i] = S[nq + d->global[i]];
    }
    PetscCall(PetscArrayzero(Dq, m * m));
    PetscCall(PetscArrayzero(Dv, m * m));
    PetscCall(el->ops->force_second(view, el, t, lq, lv, lsq, lsv, j, Dq, Dv, m, element_work));
    PetscCall(SinkAdd(&sink, m, Shifted(d, m, nq, rows), m, Shifted(d, m, 0, cols), Dq));
    PetscCall(SinkAdd(&sink, m, rows, m, Shifted(d, m, nq, cols), Dv));
  }
  for (PetscInt r = 0; r < nc; r++) {
    PetscInt       b[MBS_VIEW_BODIES], nb = RowBodies(d, r, b), m;
    PetscReal     *H = Dq, *Hs = Dv, *a = element_work, *w = a + L, *lq, *lv;
    MbsDescription view;
    MbsBilinear    drow;

    view = View(d, nb, b, q, v, &lq, &lv);
    m    = view->nq;
    PetscCall(PetscArrayzero(H, m * m));
    MbsBilinearAddHessian(view, d->row[r], 1, H, m);
    for (PetscInt i = 0; i < m; i++) {
      a[i] = w[i] = 0;
      for (PetscInt k = 0; k < m; k++) {
        a[i] += H[i + k * m] * S[d->global[k]];
        w[i] += H[i + k * m] * S[nq + d->global[k]];
      }
    }
    PetscCall(AddRowSecond(d, &sink, r, m, H, Smu[r], Slambda[r], a, w, Hs));
    if (!RowP(d, view, r, j, &drow)) continue;
    /* the row's share of dF/dp_j when p_j moves its joint's point (AddJointRowsP), differentiated by U */
    PetscCall(PetscArrayzero(H, m * m));
    PetscCall(PetscArrayzero(a, 2 * L));
    MbsBilinearAddHessian(view, &drow, 1, H, m);
    MbsBilinearAddGradient(view, &drow, lq, 1, a, 1);
    MbsBilinearAddRateGradient(view, &drow, lv, 1, w, 1);
    PetscCall(AddRowSecond(d, &sink, r, m, H, mu[r], lambda[r], a, w, Hs));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobianSensitivity(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], const PetscReal S[], const PetscReal Sdot[], PetscInt j, PetscReal shift, PetscReal D[])
{
  PetscInt   L = ((Described *)model->data)->nlocal;
  PetscReal *work;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * L + 2 * L * L + MBS_SECOND_WORK(L), &work));
  MbsCallCleanup(DescribedJacobianSensitivity_Private(model, FORCES_ALL, t, U, S, j, shift, D, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/* Singular values s (min(m, n)) and V^T (n x n) of the m x n column-major A (overwritten), m >= 1 */
static PetscErrorCode SingularValues(PetscInt m, PetscInt n, PetscReal A[], PetscReal s[], PetscReal VT[])
{
  PetscBLASInt bm, bn, lwork, info, one = 1;
  PetscReal   *work, U;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(10 * (m + n) + 64, &lwork));
  PetscCall(PetscMalloc1(lwork, &work));
  LAPACKgesvd_("N", "A", &bm, &bn, A, &bm, s, &U, &one, VT, &bn, work, &lwork, &info);
  PetscCall(PetscFree(work));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK gesvd failed with info %d", (int)info);
  PetscFunctionReturn(0);
}

static PetscInt Rank(PetscInt count, const PetscReal s[])
{
  PetscInt rank = 0;

  for (PetscInt i = 0; i < count; i++) rank += s[i] > 1e-9 * s[0];
  return rank;
}

static PetscErrorCode OwnerName(MbsModel model, PetscInt r, char text[], size_t size)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = d->desc;
  PetscInt       o    = d->row_owner[r];

  PetscFunctionBeginUser;
  if (o < 0) PetscCall(PetscSNPrintf(text, size, "Model file '%s', line %" PetscInt_FMT ", body '%s'", desc->file, desc->body[-1 - o].line, desc->body[-1 - o].name));
  else PetscCall(PetscSNPrintf(text, size, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s)", desc->file, desc->element[o].line, desc->element[o].name, desc->element[o].type));
  PetscFunctionReturn(0);
}

/*
  The checks before any solve that need the assembled constraints: the initial pose and velocity satisfy every row,
  and the rows of each body and joint, added in the file's order, raise the rank of Phi_q by their number (the first
  joint that does not is redundant with those before it).
*/
static PetscErrorCode DescribedCheck_Private(MbsModel model, PetscReal *G, PetscReal *s, PetscReal *VT, PetscReal *q, PetscReal *v)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc;
  PetscReal      qscale = 1, vscale = 1;
  char           owner[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  PetscCheck(d->nc_kept < d->nq_free, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': %" PetscInt_FMT " constraints on %" PetscInt_FMT " coordinates leave no free motion%s", desc->file, d->nc_kept, d->nq_free,
             d->planar >= 0 && desc->nc < desc->nq ? " in the plane (planar: a joint whose axis is not the plane's normal holds the bodies still)" : "");
  PetscCall(InitialPose(desc, NULL, q, v));
  for (PetscInt i = 0; i < nq; i++) {
    qscale = PetscMax(qscale, PetscAbsReal(q[i]));
    vscale = PetscMax(vscale, PetscAbsReal(v[i]));
  }
  for (PetscInt r = 0; r < nc; r++) {
    PetscReal phi = MbsBilinearValue(desc, d->row[r], q), rate = MbsBilinearRate(desc, d->row[r], q, v);

    if (PetscAbsReal(phi) > 1e-9 * qscale) {
      PetscInt first = r;

      while (first > 0 && d->row_owner[first - 1] == d->row_owner[r]) first--;
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the initial pose violates its constraint %" PetscInt_FMT " by %g; place the bodies so that the joint holds", owner, r - first + 1, (double)phi);
    }
    if (PetscAbsReal(rate) > 1e-9 * vscale && !(d->row_owner[r] >= 0 && desc->element[d->row_owner[r]].motion)) { /* a prescribed motion sets its own (ImposeMotion) */
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the initial velocities violate its constraint (rate %g); give velocities the joint allows", owner, (double)rate);
    }
  }
  for (PetscInt r = 0, rank = 0, kept = 0; r < nc;) { /* planar: the kept rows on the free coordinates */
    PetscInt end = r + 1, new_rank, mc, mq;

    while (end < nc && d->row_owner[end] == d->row_owner[r]) end++;
    ModelConstraintJacobian(d, q, end, G, &mc, &mq);
    if (mc == kept) { /* every row of this entity dropped */
      r = end;
      continue;
    }
    PetscCall(SingularValues(mc, mq, G, s, VT));
    new_rank = Rank(PetscMin(mc, mq), s);
    if (new_rank < mc) {
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " of its %" PetscInt_FMT " constraints repeat those before it (the constraint Jacobian has rank %" PetscInt_FMT " for %" PetscInt_FMT " rows at the initial pose%s); remove the redundant joint or use one that fixes fewer directions", owner, mc - kept - (new_rank - rank), mc - kept, new_rank, mc, d->planar >= 0 ? ", in the plane" : "");
    }
    rank = new_rank;
    kept = mc;
    r    = end;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedCheck(MbsModel model)
{
  PetscInt   nq = NQ(model), nc = NC(model);
  PetscReal *G, *s, *VT, *q, *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(nc * nq, &G, nq + nc, &s, nq * nq, &VT, nq, &q, nq, &v));
  MbsCallCleanup(DescribedCheck_Private(model, G, s, VT, q, v), PetscFree5(G, s, VT, q, v));
  PetscFunctionReturn(0);
}

/* N^T A N (nq x nq A, N nq x m) into R (m x m), as N^T (A N): nq m (nq + m) operations, not nq^2 m^2 */
static PetscErrorCode Project(PetscInt nq, PetscInt m, const PetscReal N[], const PetscReal A[], PetscReal R[])
{
  PetscReal *AN;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nq * m, &AN));
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt l = 0; l < nq; l++)
      for (PetscInt k = 0; k < nq && N[l + j * nq] != 0; k++) AN[k + j * nq] += A[k + l * nq] * N[l + j * nq];
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal sum = 0;

      for (PetscInt k = 0; k < nq; k++) sum += N[k + i * nq] * AN[k + j * nq];
      MBS_IJ(R, i, j, m) = sum;
    }
  PetscCall(PetscFree(AN));
  PetscFunctionReturn(0);
}

/* X + (p_j - p0) dX of a part of the continued linearisation (Along), count entries, into Y */
static void AlongValue(MbsModel model, PetscInt count, const PetscReal X[], const PetscReal dX[], PetscReal Y[])
{
  const Along *a = ((Described *)model->data)->along;
  PetscReal    h = model->p[a->j] - a->p0;

  for (PetscInt k = 0; k < count; k++) Y[k] = X[k] + h * dX[k];
}

static PetscErrorCode AlongDestroy(Along **a)
{
  PetscFunctionBeginUser;
  if (!*a) PetscFunctionReturn(0);
  PetscCall(PetscFree((*a)->q));
  PetscCall(PetscFree(*a));
  PetscFunctionReturn(0);
}

/*
  N (nq x m): an orthonormal basis of the null space of Phi_q at the initial pose q, the free motions (SVD; G, s, VT:
  work). Unless a joint's point is a parameter or the start pose moves with the parameters (a body's start position or
  orientation, a universal's axes: q moves, and with it Phi_q, the orthonormality rows included), N is computed once
  and kept: its SVD is most of the work of a linearisation with a flexible body, which the frequency response's
  derivatives repeat twice per parameter. Otherwise N is kept with the parameters it was computed at and reused at the same ones: the
  frequency response at p0 and the continuation from it (DescribedLinearizeAlong()) must see the same basis N0 of the
  null space, not merely the same space; while the linearisation is continued, N(p0) + (p - p0) dN/dp.
*/
static PetscErrorCode FreeMotions(MbsModel model, const PetscReal q[], PetscReal G[], PetscReal s[], PetscReal VT[], PetscReal N[])
{
  Described *d  = (Described *)model->data;
  PetscInt   nq = NQ(model), nc = NC(model), mc, mq;
  PetscBool  same = PETSC_TRUE;

  PetscFunctionBeginUser;
  if (d->along) {
    AlongValue(model, nq * model->nq, d->along->N, d->along->dN, N);
    PetscFunctionReturn(0);
  }
  if (d->free_motions && (d->joint_geometry || d->moves_pose)) PetscCall(PetscArraycmp(d->free_motions_p, model->p, model->np, &same));
  if (d->free_motions && same) {
    PetscCall(PetscArraycpy(N, d->free_motions, nq * model->nq));
    PetscFunctionReturn(0);
  }
  ModelConstraintJacobian(d, q, nc, G, &mc, &mq);
  if (mc) PetscCall(SingularValues(mc, mq, G, s, VT)); /* G is overwritten */
  PetscCall(PetscArrayzero(N, nq * model->nq));        /* planar: zero on the pinned coordinates */
  for (PetscInt j = 0; j < model->nq; j++)
    for (PetscInt i = 0; i < mq; i++) N[d->free[i] + j * nq] = mc ? MBS_IJ(VT, mc + j, i, mq) : (PetscReal)(i == j);
  if (!d->free_motions) PetscCall(PetscMalloc2(nq * model->nq, &d->free_motions, model->np, &d->free_motions_p));
  PetscCall(PetscArraycpy(d->free_motions, N, nq * model->nq));
  PetscCall(PetscArraycpy(d->free_motions_p, model->p, model->np));
  PetscFunctionReturn(0);
}

/* (G G^T) X = B in place for nrhs right sides B (nc x nrhs), G (nc x nq) of full rank */
static PetscErrorCode NormalSolve(MbsModel model, PetscInt nc, PetscInt nq, const PetscReal G[], PetscInt nrhs, PetscReal B[])
{
  PetscReal *A;
  PetscInt  *pivots, zero_pivot;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(nc * nc, &A, 3 * nc, &pivots));
  for (PetscInt r = 0; r < nc; r++)
    for (PetscInt c = 0; c < nc; c++) {
      MBS_IJ(A, r, c, nc) = 0;
      for (PetscInt i = 0; i < nq; i++) MBS_IJ(A, r, c, nc) += MBS_IJ(G, r, i, nc) * MBS_IJ(G, c, i, nc);
    }
  zero_pivot = MbsDenseLUFactor(nc, A, pivots);
  if (zero_pivot < 0) MbsDenseLUSolve(nc, A, pivots, nrhs, B);
  PetscCall(PetscFree2(A, pivots));
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': the constraint Jacobian at the initial pose has lost its full rank at these parameters (zero pivot in row %" PetscInt_FMT " of Phi_q Phi_q^T): a joint is redundant there",
             Description(model)->file, zero_pivot);
  PetscFunctionReturn(0);
}

/*
  The static equilibrium at the pose q at rest (v = 0) with the internal states s: R = -f without excitation (nq),
  G = Phi_q (nc x nq) and the multipliers lambda (nc) of Phi_q^T lambda = -R (least squares: (G G^T) lambda = -G R),
  refused unless R + G^T lambda vanishes; -df/dq, -df/dv into J and -df/dp into Jp (each may be NULL; AddForces()).
*/
static PetscErrorCode StaticEquilibrium(MbsModel model, const PetscReal q[], const PetscReal v[], const PetscReal s[], Sink *J, Sink *Jp, const PetscInt offset[5], PetscReal R[], PetscReal G[], PetscReal lambda[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, mc, mq;
  PetscReal      unbalanced = 0, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(R, nq));
  PetscCall(AddForces(d, FORCES_STATE, model->t0, q, v, s, R, NULL, J, Jp, offset));
  ModelConstraintJacobian(d, q, nc, G, &mc, &mq); /* planar: the plane takes the pinned coordinates' forces */
  for (PetscInt r = 0; r < mc; r++) {
    lambda[r] = 0;
    for (PetscInt i = 0; i < mq; i++) lambda[r] -= MBS_IJ(G, r, i, mc) * R[d->free[i]];
  }
  if (mc) PetscCall(NormalSolve(model, mc, mq, G, 1, lambda));
  for (PetscInt i = 0; i < mq; i++) {
    PetscReal residual = R[d->free[i]];

    for (PetscInt r = 0; r < mc; r++) residual += MBS_IJ(G, r, i, mc) * lambda[r];
    unbalanced = PetscMax(unbalanced, PetscAbsReal(residual));
    scale      = PetscMax(scale, PetscAbsReal(R[d->free[i]]));
  }
  for (PetscInt r = nc - 1; r >= 0 && d->planar >= 0; r--) lambda[r] = RowDropped(d, r) ? 0 : lambda[d->reduce[2 * nq + r] - 2 * d->nq_free]; /* onto every row, down: kept row k is at most row r */
  for (PetscInt b = 0; b < desc->nbody && unbalanced > 1e-8 * PetscMax(scale, 1); b++) {                                                      /* velocities do not enter the linearisation at rest */
    for (PetscInt i = 0; i < 18; i++) {
      PetscInt k = desc->body[b].start[i].param;

      if (k < 0 || (i >= 3 && i < 9) || model->p[k] == model->param_info[k].value) continue;
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s', line %" PetscInt_FMT ", body '%s': parameter '%s' = %g (file: %g) moves its initial %s, and the linearisation (eigen, frf, -cost frf) is about the start pose at rest, which is then no static equilibrium (a generalised force of %g is not carried by the joints); linearise at the file's value, and identify '%s' with -cost time or spectrum",
              desc->file, desc->body[b].line, desc->body[b].name, model->param_info[k].name, (double)model->p[k], (double)model->param_info[k].value, i < 3 ? "position" : "orientation", (double)unbalanced, model->param_info[k].name);
    }
  }
  if (unbalanced > 1e-8 * PetscMax(scale, 1) && ((Described *)model->data)->moves_pose) {
    char at[256];

    PetscCall(MovedParameters(model, model->p, at, sizeof(at)));
    PetscCheck(!at[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': the start pose at %s, moved onto the joints from the file's pose (the nearest pose, not a balanced one), is no static equilibrium (a generalised force of %g is not carried by the joints), so the modes about it mean nothing; the file's pose is the one to linearise about",
               desc->file, at, (double)unbalanced);
  }
  PetscCheck(unbalanced <= 1e-8 * PetscMax(scale, 1), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': the initial pose is no static equilibrium (a generalised force of %g is not carried by the joints), so the modes about it mean nothing: start at rest in equilibrium",
             desc->file, (double)unbalanced);
  PetscFunctionReturn(0);
}

/* The pose of the linearisation at rest (v = 0): the start pose (StartPose()), or while it is continued q0 + (p_j - p0)
   dq0/dp_j (DescribedLinearizeAlong()) */
static PetscErrorCode LinearizationPose(MbsModel model, PetscReal q[], PetscReal v[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  if (d->along) AlongValue(model, NQ(model), d->along->q, d->along->dq, q);
  else PetscCall(StartPose(model, q, v));
  PetscCall(PetscArrayzero(v, NQ(model)));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedLinearize_Private(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[], PetscReal *work)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq;
  PetscReal     *q = work, *v = q + nq, *R = v + nq, *G = R + nq, *VT = G + nc * nq, *s = VT + nq * nq, *N = s + nq + nc, *Mf = N + nq * m, *Cf = Mf + nq * nq, *Kf = Cf + nq * nq, *lambda = Kf + nq * nq, *state = lambda + nc;
  PetscInt       offset[5]         = {0, nq, 0, -1, -1}; /* -df/dq into Kf, -df/dv into Cf: Kf follows Cf; the internal states held */
  Sink           damping_stiffness = {.type = SINK_DENSE, .dense = Cf, .ld = nq}, mass = {.type = SINK_DENSE, .dense = Mf, .ld = nq};

  PetscFunctionBeginUser;
  if (d->along) AlongValue(model, 2 * nq * nq, d->along->CK, d->along->dCK, Cf); /* Cf, then Kf */
  else {
    PetscCall(StartPose(model, q, v));
    PetscCall(PetscArrayzero(v, nq));
    StatesInitial(d, q, NULL, -1, state, NULL); /* at rest, the dampers relaxed */
    PetscCall(StaticEquilibrium(model, q, v, state, &damping_stiffness, NULL, offset, R, G, lambda));
    for (PetscInt r = 0; r < nc; r++) MbsBilinearAddHessian(desc, d->row[r], lambda[r], Kf, nq);
  }
  PetscCall(AddMass(d, model->p, 1, &mass, 0));
  PetscCall(FreeMotions(model, q, G, s, VT, N));
  PetscCall(Project(nq, m, N, Mf, M));
  PetscCall(Project(nq, m, N, Cf, C));
  PetscCall(Project(nq, m, N, Kf, K));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  PetscInt   nq = NQ(model), nc = NC(model), m = model->nq;
  PetscReal *work;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(3 * nq + nc * nq + 4 * nq * nq + nq * m + 2 * nc + nq + ((Described *)model->data)->desc->ns, &work));
  MbsCallCleanup(DescribedLinearize_Private(model, M, C, K, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/* x^T = v^T N (nq x m) for the rows of the free motions: out (m) = N^T v */
static void ProjectVector(PetscInt nq, PetscInt m, const PetscReal N[], const PetscReal v[], PetscReal out[])
{
  for (PetscInt j = 0; j < m; j++) {
    out[j] = 0;
    for (PetscInt i = 0; i < nq; i++) out[j] += N[i + j * nq] * v[i];
  }
}

/*
  The linearisation's input and outputs (MbsModelLinearizeIO) on the free motions x (q = q0 + N x): the load, a force
  element of fixed direction e at the point P(q) (linear in q), has the generalised force f = P_q^T e F(t), so B = N^T
  P_q^T e per newton of F; a sensor's y(q, v, a) about the pose at rest gives Cq = N^T dy/dq, Cv = N^T dy/dv and (an
  accelerometer) Ca = N^T dy/da, the terms in v and a of second order dropping out at rest.
*/
static PetscErrorCode DescribedLinearizeIO_Private(MbsModel model, const char load[], const char **used, PetscReal B[], PetscReal Cq[], PetscReal Cv[], PetscReal Ca[], PetscReal *work)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq, n = NFull(model), found = -1;
  PetscReal     *U = work, *a = U + n, *dydu = a + nq, *dyda = dydu + n, *G = dyda + nq, *s = G + nc * nq, *VT = s + nq + nc, *N = VT + nq * nq, y;
  PetscReal      direction[3], unused[3];
  MbsVectorMap   P;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (load ? strcmp(desc->element[e].name, load) : desc->element[e].ops->kind != MBS_ELEMENT_EXCITATION) continue;
    /* the linearised model (-linearize) is driven by the first excitation alone: a second one would go missing */
    PetscCheck(found < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s' has more than one excitation ('%s', line %" PetscInt_FMT ", and '%s', line %" PetscInt_FMT "): the frequency response and the linearised model (-linearize) take one; name the load of mbsid frf with -frf_load, or keep one excitation in the file",
               desc->file, desc->element[found].name, desc->element[found].line, desc->element[e].name, desc->element[e].line);
    found = e;
  }
  PetscCheck(found >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s' has no element '%s' to load the frequency response with (-frf_load)", desc->file, load ? load : "of an excitation");
  PetscCheck(!strcmp(desc->element[found].type, "force"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': element '%s' (line %" PetscInt_FMT ") is a %s, but the load of a frequency response must be a force element", desc->file,
             desc->element[found].name, desc->element[found].line, desc->element[found].type);
  PetscCheck(!desc->element[found].turning, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s': force '%s' (line %" PetscInt_FMT ") has frame: body, but the load of a frequency response and of the linearised model (-linearize) must keep its direction in the ground (frame: ground)",
             desc->file, desc->element[found].name, desc->element[found].line);
  *used = desc->element[found].name;
  PetscCall(LinearizationPose(model, U, U + nq));
  PetscCall(FreeMotions(model, U, G, s, VT, N));
  MbsMapPoint(desc, desc->element[found].body[0], desc->element[found].vector[0], &P);
  PetscCall(PetscArrayzero(a, nq));
  MbsJointAxisUnit(&desc->element[found], -1, direction, unused); /* at the parameters (geometry.c, "Axes") */
  MbsMapAddTranspose(desc, &P, 1, direction, a, 1);
  ProjectVector(nq, m, N, a, B);
  PetscCall(PetscArrayzero(a, nq));
  for (PetscInt c = 0; c < model->nchannel; c++) {
    const MbsElement *el = &desc->element[d->sensor[c]];

    PetscCheck(!el->constraint, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s': sensor '%s' (line %" PetscInt_FMT ") reads a constraint's multiplier, which the linearisation of the frequency response does not carry; remove it for mbsid frf", desc->file, el->name, el->line);
    PetscCall(PetscArrayzero(dydu, n));
    PetscCall(PetscArrayzero(dyda, nq));
    PetscCall(ViewSensor(model, d->sensor[c], U, el->ops->acceleration ? a : NULL, 1, &y, dydu, dyda));
    ProjectVector(nq, m, N, dydu, Cq + c * m);
    ProjectVector(nq, m, N, dydu + nq, Cv + c * m);
    ProjectVector(nq, m, N, dyda, Ca + c * m);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedLinearizeIO(MbsModel model, const char load[], const char **used, PetscReal B[], PetscReal Cq[], PetscReal Cv[], PetscReal Ca[])
{
  PetscInt   nq = NQ(model), nc = NC(model), n = NFull(model);
  PetscReal *work;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(2 * n + 3 * nq + 2 * nc * nq + nq * nq + nc + nq * model->nq, &work));
  MbsCallCleanup(DescribedLinearizeIO_Private(model, load, used, B, Cq, Cv, Ca, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/* The blocks of the first-order form at (q, v, s) into W0 and W1 (ld x (2 nq + ns) each, ld = nq + ns, zeroed): the force
   rows' d/ds and the state rows' d/dq, d/dv, d/ds (W0), the state rows' d/ds + d/ds' (W1) */
static PetscErrorCode StateBlocks(Described *d, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], PetscReal W0[], PetscReal W1[])
{
  PetscInt nq = d->desc->nq, offset[5] = {0, 0, nq, 2 * nq, nq};
  Sink     rates = {.type = SINK_DENSE, .dense = W0, .ld = nq + d->desc->ns}, shifted = {.type = SINK_DENSE, .dense = W1, .ld = nq + d->desc->ns};

  PetscFunctionBeginUser;
  PetscCall(AddForces(d, FORCES_STATE, t, q, v, s, NULL, NULL, &rates, NULL, offset));
  PetscCall(AddStates(d, t, q, v, s, NULL, 0, NULL, &rates, NULL, offset));
  PetscCall(AddStates(d, t, q, v, s, NULL, 1, NULL, &shifted, NULL, offset));
  PetscFunctionReturn(0);
}

/* The derivative of StateBlocks()'s W0 (shift 0) or W1 (shift 1) from D, the derivative of the model's dF/dU + shift
   dF/dU' (n x n): the blocks the first-order form reads, the force rows' d/ds and the state rows' */
static void StateBlocksDerivative(MbsModel model, const PetscReal D[], PetscReal dW[])
{
  MbsDescription desc = ((Described *)model->data)->desc;
  PetscInt       nq = desc->nq, ns = desc->ns, ld = nq + ns, n = NFull(model), s0 = 2 * nq + 2 * desc->nc;

  for (PetscInt k = 0; k < ns; k++)
    for (PetscInt i = 0; i < nq; i++) MBS_IJ(dW, i, 2 * nq + k, ld) = MBS_IJ(D, nq + i, s0 + k, n);
  for (PetscInt a = 0; a < ns; a++) {
    for (PetscInt k = 0; k < 2 * nq; k++) MBS_IJ(dW, nq + a, k, ld) = MBS_IJ(D, s0 + a, k, n);
    for (PetscInt k = 0; k < ns; k++) MBS_IJ(dW, nq + a, 2 * nq + k, ld) = MBS_IJ(D, s0 + a, s0 + k, n);
  }
}

/*
  The first-order linearisation of a model with internal states, about the point of DescribedLinearize() (the initial
  pose at rest, lambda static, the dampers relaxed: s = s(t0)), on the free motions dq = N y, x = (y, w = y', s):

    y' = w
    M_r w' = -K_r y - C_r w - N^T F_s s          F_s = d(-f)/ds (nq x ns): the force rows' d/ds
    P s'   = -R_q N y - R_v N w - R_s s           R the state rows, P = dR/ds' (they are affine in s')

  B = blockdiag(I, M_r, P), A the right-hand sides; M_r, C_r, K_r those of DescribedLinearize(), with s held.
*/
static PetscErrorCode DescribedLinearizeFirstOrder_Private(MbsModel model, PetscReal A[], PetscReal B[], PetscReal *work)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, ns = desc->ns, m = model->nq, N = 2 * m + ns, ld = nq + ns;
  PetscReal     *M = work, *C = M + m * m, *K = C + m * m, *q = K + m * m, *v = q + nq, *s = v + nq, *G = s + ns, *sv = G + nc * nq, *VT = sv + nq + nc, *Nm = VT + nq * nq, *W0 = Nm + nq * m, *W1 = W0 + ld * (2 * nq + ns);

  PetscFunctionBeginUser;
  PetscCall(DescribedLinearize(model, M, C, K));
  PetscCall(LinearizationPose(model, q, v));
  PetscCall(FreeMotions(model, q, G, sv, VT, Nm));
  if (d->along) AlongValue(model, 2 * ld * (2 * nq + ns), d->along->W, d->along->dW, W0); /* W0, then W1 */
  else {
    StatesInitial(d, q, NULL, -1, s, NULL);
    PetscCall(StateBlocks(d, model->t0, q, v, s, W0, W1));
  }
  for (PetscInt i = 0; i < m; i++) {
    MBS_IJ(B, i, i, N)     = 1;
    MBS_IJ(A, i, m + i, N) = 1;
    for (PetscInt j = 0; j < m; j++) {
      MBS_IJ(B, m + i, m + j, N) = MBS_IJ(M, i, j, m);
      MBS_IJ(A, m + i, j, N)     = -MBS_IJ(K, i, j, m);
      MBS_IJ(A, m + i, m + j, N) = -MBS_IJ(C, i, j, m);
    }
    for (PetscInt j = 0; j < ns; j++)
      for (PetscInt k = 0; k < nq; k++) MBS_IJ(A, m + i, 2 * m + j, N) -= MBS_IJ(Nm, k, i, nq) * MBS_IJ(W0, k, 2 * nq + j, ld);
  }
  for (PetscInt i = 0; i < ns; i++) {
    for (PetscInt j = 0; j < m; j++)
      for (PetscInt k = 0; k < nq; k++) {
        MBS_IJ(A, 2 * m + i, j, N) -= MBS_IJ(W0, nq + i, k, ld) * MBS_IJ(Nm, k, j, nq);
        MBS_IJ(A, 2 * m + i, m + j, N) -= MBS_IJ(W0, nq + i, nq + k, ld) * MBS_IJ(Nm, k, j, nq);
      }
    for (PetscInt j = 0; j < ns; j++) {
      MBS_IJ(A, 2 * m + i, 2 * m + j, N) = -MBS_IJ(W0, nq + i, 2 * nq + j, ld);
      MBS_IJ(B, 2 * m + i, 2 * m + j, N) = MBS_IJ(W1, nq + i, 2 * nq + j, ld) - MBS_IJ(W0, nq + i, 2 * nq + j, ld);
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedLinearizeFirstOrder(MbsModel model, PetscInt *size, PetscReal **A, PetscReal **B)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, ns = desc->ns, m = model->nq, N = 2 * m + ns;
  PetscReal     *work;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  if (!ns) PetscFunctionReturn(0);
  PetscCall(PetscCalloc2(N * N, A, N * N, B));
  PetscCall(PetscCalloc1(3 * m * m + 2 * nq + ns + nc * nq + nq + nc + nq * nq + nq * m + 2 * (nq + ns) * (2 * nq + ns), &work));
  ierr = DescribedLinearizeFirstOrder_Private(model, *A, *B, work);
  PetscCall(PetscFree(work));
  MbsCallUndo(ierr, PetscFree2(*A, *B)); /* a caller may go on after a failure */
  *size = N;
  PetscFunctionReturn(0);
}

/*
  The linearisation continued along p_j (MbsModelLinearizeDerivative()) of a model whose joints move with its
  parameters. The free motions N(p), an SVD basis of the null space of G(p) = Phi_q(q0(p); p), are no smooth function
  of p: the SVD picks any orthonormal basis of that space, and may flip or rotate it between nearby p. What the
  frequency response (and eigen) reads of the linearisation does not depend on that choice: with N -> N T (T
  invertible), M, C, K -> T^T (.) T, B -> T^T B, the output rows -> (.) T, and the first-order form's rows of y' = w by
  T^-1, which leaves c^T N (N^T Z N)^-1 N^T b, the response, unchanged. So any smooth basis through N0 = N(p0) gives its
  exact derivative at p0. We take the projection of N0 onto the null space at p, N(p) = P(p) N0, P = I - G^T (G G^T)^-1
  G (a basis near p0; orthonormalising it changes nothing to first order, as N0^T dP N0 = 0):

    dN/dp_j = -G^T (G G^T)^-1 dG N0,   dG = Phi_qq dq0/dp_j + G_p   (row r: RowGradientP())

  the term P dG^T (G G^T)^-1 G N0 vanishing as G N0 = 0. The start pose q0 moves with p_j where a joint's point_a,
  point_b or a distance's length is a parameter (StartPose(); dq0/dp_j from its KKT system, PoseDerivative(), and the
  internal states' start with it, StatesInitial()). The static multipliers lambda of (G G^T) lambda = -G R, R = -f at
  rest, move with G and R: with dR~ = -f_q dq0/dp_j - f_s ds0/dp_j - f_p + dG^T lambda (the total change of R + G^T
  lambda at fixed lambda),

    (G G^T) dlambda/dp_j = -dG (R + G^T lambda) - G dR~,

  and the equilibrium holds beside p0 only if dR~ + G^T dlambda/dp_j vanishes: a parameter that moves the pose off the
  equilibrium (a loaded hinge moved sideways) is refused, as the frequency response about a pose out of equilibrium
  means nothing. The force rows' Jacobian at rest, CK = (-f_v, -f_q + sum_r lambda_r Phi_r,qq), and the first-order
  form's blocks W0, W1 move along (dq0, dlambda, ds0) and p_j: their derivatives are the second derivatives of design
  (DescribedJacobianSensitivity_Private(), the forces of the state alone) at U0 = (q0, 0, lambda, 0, s0) along S = (dq0,
  0, dlambda, 0, ds0), at shift 0 and, for d/ds' of W1, 1.

  Until the call with j < 0, the linearisation at p takes each of q0, N, CK, W as X + (p_j - p0) dX (Along): an affine
  pose, basis and force Jacobian with the exact value and first derivative at p0, and the parts that depend on p alone
  (M, the load's and sensors' points) at p itself; the rows' Hessians enter only through the continued force rows'
  Jacobian. Its frequency form is then a polynomial of degree
  4 or less in p_j, whose derivative MbsModelLinearizeDerivative()'s differences take exactly, and nothing at p_j +- s
  is solved (a rod at length L - |L| = 0 has no pose); a sensor whose rows are no polynomial in q (an angle on a body
  the pose turns) is left to that derivative's check of the degree. Every parameter is continued: with a moving pose
  a mass moves q0 too (the projection's metric).
*/
static PetscErrorCode DescribedLinearizeAlong_Private(MbsModel model, PetscInt j, Along *a, PetscReal *work, PetscReal D[], PetscReal Dwork[], StartWork *w)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, ns = desc->ns, m = model->nq, np = model->np, n = NFull(model), nw = 2 * nq + ns, offset[5] = {0, nq, 0, 2 * nq, -1};
  PetscReal     *v = work, *s = v + nq, *ds = s + ns, *R = ds + ns, *Rp = R + nq, *G = Rp + nq * np, *dG = G + nc * nq, *sv = dG + nc * nq, *VT = sv + nq + nc, *y = VT + nq * nq, *res = y + nc * m, *dR = res + nq, *lambda = dR + nq, *dlambda = lambda + nc, *U = dlambda + nc, *S = U + n, *g = S + n, *CKF = g + nq;
  PetscReal     *Kf = CKF + nq * nq, *Fs = Kf + nq * nq, unbalanced = 0, scale = 0, *size = res; /* size: after res's last read */
  Sink           forces = {.type = SINK_DENSE, .dense = CKF, .ld = nq}, forces_p = {.type = SINK_DENSE, .dense = Rp, .ld = nq};

  PetscFunctionBeginUser;
  /* G here is the 3D nc x nq (leading dimension nc), StaticEquilibrium() writes a planar model's kept rows on its free
     coordinates: a planar model refuses joints that move with p (PlanarSetUp()), so none continues its pose */
  PetscCheck(d->planar < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The linearisation of model %s continued along p_%" PetscInt_FMT " is 3D only, the model is planar", model->type, j);
  for (PetscInt e = 0; e < desc->nelement; e++) { /* rows and loads follow an axis nonlinearly: the differences of the linearisation's polynomial do not hold */
    const MbsElement *el = &desc->element[e];

    PetscCheck(!MbsJointAxisParameter(el, j) || el->ops->kind == MBS_ELEMENT_EXCITATION, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): parameter '%s' is a component of its axis, which its rows follow nonlinearly (a unit vector and its normals); the derivative of the frequency response needs rows affine in the parameter, so -cost frf takes a joint's point but not its axis: identify %s with -cost time or spectrum",
               desc->file, el->line, el->name, el->type, model->param_info[j].name, model->param_info[j].name);
    PetscCheck(!MbsJointAxisParameter(el, j), PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): parameter '%s' is a component of its direction or axis, which the load follows nonlinearly (a unit vector); the derivative of the frequency response needs a load affine in the parameter, so -cost frf takes a force's point but not its direction: identify %s with -cost time or spectrum",
               desc->file, el->line, el->name, el->type, model->param_info[j].name, model->param_info[j].name);
    PetscCheck(el->ops->kind != MBS_ELEMENT_SENSOR || !MbsForceLawKnot(el, j), PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", sensor '%s' (%s): parameter '%s' is a knot of the table law the sensor reads, whose slope at rest, the sensor's row, follows the knot nonlinearly (a spline); the derivative of the frequency response needs sensor rows polynomial in the parameter: identify %s with -cost time or spectrum, or leave the sensor out of the model",
               desc->file, el->line, el->name, el->type, model->param_info[j].name, model->param_info[j].name);
  }
  PetscCall(InitialPose(desc, model->p, a->q, v));
  if (d->moves_pose) PetscCall(ProjectPose(model, a->q, w));
  InitialPoseDerivative(desc, model->p, j, w->dqf, w->dvf);
  PoseDerivative(model, j, a->q, w, a->dq);
  PetscCall(PetscArrayzero(v, nq));
  StatesInitial(d, a->q, d->moves_pose ? a->dq : NULL, j, s, ds);
  PetscCall(FreeMotions(model, a->q, dG, sv, VT, a->N)); /* dG: scratch */
  PetscCall(StaticEquilibrium(model, a->q, v, s, &forces, &forces_p, offset, R, G, lambda));
  for (PetscInt r = 0; r < nc; r++) {
    RowGradientP(d, r, j, a->q, a->dq, g);
    for (PetscInt i = 0; i < nq; i++) MBS_IJ(dG, r, i, nc) = g[i];
  }
  for (PetscInt i = 0; i < nq; i++) {
    dR[i]  = Rp[i + j * nq];
    res[i] = R[i];
    for (PetscInt k = 0; k < nq; k++) dR[i] += MBS_IJ(Kf, i, k, nq) * a->dq[k];
    for (PetscInt k = 0; k < ns; k++) dR[i] += MBS_IJ(Fs, i, k, nq) * ds[k];
    for (PetscInt r = 0; r < nc; r++) {
      dR[i] += MBS_IJ(dG, r, i, nc) * lambda[r];
      res[i] += MBS_IJ(G, r, i, nc) * lambda[r];
    }
  }
  for (PetscInt r = 0; r < nc; r++) {
    dlambda[r] = 0;
    for (PetscInt i = 0; i < nq; i++) dlambda[r] -= MBS_IJ(dG, r, i, nc) * res[i] + MBS_IJ(G, r, i, nc) * dR[i];
  }
  PetscCall(NormalSolve(model, nc, nq, G, 1, dlambda));
  /* the equilibrium's change dR~ + G^T dlambda against the size of the terms it sums (not of dR~ itself, in which
     stiff mounts' large terms may cancel to rounding) */
  for (PetscInt i = 0; i < nq; i++) {
    size[i] = PetscAbsReal(Rp[i + j * nq]);
    for (PetscInt k = 0; k < nq; k++) size[i] += PetscAbsReal(MBS_IJ(Kf, i, k, nq) * a->dq[k]);
    for (PetscInt k = 0; k < ns; k++) size[i] += PetscAbsReal(MBS_IJ(Fs, i, k, nq) * ds[k]);
    for (PetscInt r = 0; r < nc; r++) size[i] += PetscAbsReal(MBS_IJ(dG, r, i, nc) * lambda[r]) + PetscAbsReal(MBS_IJ(G, r, i, nc) * dlambda[r]);
  }
  for (PetscInt i = 0; i < nq; i++) {
    PetscReal left = dR[i];

    for (PetscInt r = 0; r < nc; r++) left += MBS_IJ(G, r, i, nc) * dlambda[r];
    unbalanced = PetscMax(unbalanced, PetscAbsReal(left));
    scale      = PetscMax(scale, size[i]);
  }
  PetscCheck(unbalanced <= 1e-8 * PetscMax(scale, 1), PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s': parameter '%s' moves the linearisation off its static equilibrium: at %s = %g the joints carry the generalised forces, but not their change with %s (%g per unit of %s is not carried), so no pose beside this value is an equilibrium and the frequency response has no derivative by it; leave it out of -identify with -cost frf",
             desc->file, model->param_info[j].name, model->param_info[j].name, (double)model->p[j], model->param_info[j].name, (double)unbalanced, model->param_info[j].name);
  for (PetscInt r = 0; r < nc; r++) MbsBilinearAddHessian(desc, d->row[r], lambda[r], Kf, nq);
  PetscCall(PetscArraycpy(a->CK, CKF, 2 * nq * nq));
  /* dN = -G^T (G G^T)^-1 (dG N0) */
  for (PetscInt c = 0; c < m; c++)
    for (PetscInt r = 0; r < nc; r++) {
      MBS_IJ(y, r, c, nc) = 0;
      for (PetscInt i = 0; i < nq; i++) MBS_IJ(y, r, c, nc) += MBS_IJ(dG, r, i, nc) * MBS_IJ(a->N, i, c, nq);
    }
  PetscCall(NormalSolve(model, nc, nq, G, m, y));
  for (PetscInt c = 0; c < m; c++)
    for (PetscInt i = 0; i < nq; i++) {
      MBS_IJ(a->dN, i, c, nq) = 0;
      for (PetscInt r = 0; r < nc; r++) MBS_IJ(a->dN, i, c, nq) -= MBS_IJ(G, r, i, nc) * MBS_IJ(y, r, c, nc);
    }
  /* the Jacobians' derivatives along S = (dq0, 0, dlambda, 0, ds0) and p_j */
  PetscCall(PetscArrayzero(U, 2 * n));
  for (PetscInt i = 0; i < nq; i++) {
    U[i] = a->q[i];
    S[i] = a->dq[i];
  }
  for (PetscInt r = 0; r < nc; r++) {
    U[2 * nq + r] = lambda[r];
    S[2 * nq + r] = dlambda[r];
  }
  for (PetscInt k = 0; k < ns; k++) {
    U[2 * nq + 2 * nc + k] = s[k];
    S[2 * nq + 2 * nc + k] = ds[k];
  }
  for (PetscInt shift = 0; shift < 1 + (ns > 0); shift++) {
    PetscCall(PetscArrayzero(D, n * n));
    PetscCall(DescribedJacobianSensitivity_Private(model, FORCES_STATE, model->t0, U, S, j, shift, D, Dwork));
    if (!shift)
      for (PetscInt k = 0; k < nq; k++)
        for (PetscInt i = 0; i < nq; i++) {
          MBS_IJ(a->dCK, i, k, nq)      = MBS_IJ(D, nq + i, nq + k, n);
          MBS_IJ(a->dCK, i, nq + k, nq) = MBS_IJ(D, nq + i, k, n);
        }
    if (ns) StateBlocksDerivative(model, D, a->dW + shift * (nq + ns) * nw);
  }
  if (ns) PetscCall(StateBlocks(d, model->t0, a->q, v, s, a->W, a->W + (nq + ns) * nw));
  PetscFunctionReturn(0);
}

/* Whether the linearisation continues along the parameters: joint points move Phi_q, and a table law's knots (no
   polynomial in them) in 3D; a bushing frame's entries alone set linearize_along only to be refused there */
static PetscBool ContinuesAlong(Described *d)
{
  for (PetscInt e = 0; e < d->desc->nelement && d->planar < 0; e++)
    if (MbsForceLawKnot(&d->desc->element[e], -1)) return PETSC_TRUE;
  return d->joint_geometry;
}

static PetscErrorCode DescribedLinearizeAlong(MbsModel model, PetscInt j)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, ns = desc->ns, m = model->nq, n = NFull(model), np = model->np, L = d->nlocal, nw = 2 * nq + ns, nW = ns ? 2 * (nq + ns) * nw : 0;
  PetscReal     *work, *D, *Dwork;
  Along         *a;
  StartWork      w;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(AlongDestroy(&d->along)); /* the linearisation continues no more */
  if (j < 0) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < desc->nelement; e++) { /* the polar factor of a bushing's axes is no polynomial in an entry */
    const MbsElement *el = &desc->element[e];

    for (PetscInt k = 0; k < 9 && el->nframe; k++)
      PetscCheck(el->frame[k].param != j, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): parameter '%s' is an entry of its axes, which its coordinates follow nonlinearly (the rotation nearest to the entries); the derivative of the frequency response needs a linearisation polynomial in the parameter, so -cost frf takes a bushing's stiffness, damping and points but not its axes: identify %s with -cost time or spectrum",
                 desc->file, el->line, el->name, el->type, model->param_info[j].name, model->param_info[j].name);
  }
  if (!ContinuesAlong(d)) PetscFunctionReturn(0);
  PetscCall(PetscNew(&a));
  MbsCallUndo(PetscCalloc1(2 * nq + 2 * nq * m + 4 * nq * nq + 2 * nW, &a->q), AlongDestroy(&a));
  a->j   = j;
  a->p0  = model->p[j];
  a->dq  = a->q + nq;
  a->N   = a->dq + nq;
  a->dN  = a->N + nq * m;
  a->CK  = a->dN + nq * m;
  a->dCK = a->CK + 2 * nq * nq;
  a->W   = a->dCK + 2 * nq * nq;
  a->dW  = a->W + nW;
  MbsCallUndo(StartWorkCreate(model, &w), AlongDestroy(&a));
  MbsCallUndo(PetscCalloc3(6 * nq + 2 * ns + nq * np + 2 * nc * nq + nc + nq * nq + nc * m + 2 * nc + 2 * n + nq * nw, &work, n * n, &D, 2 * L + 2 * L * L + MBS_SECOND_WORK(L), &Dwork), (StartWorkDestroy(&w), AlongDestroy(&a)));
  ierr = DescribedLinearizeAlong_Private(model, j, a, work, D, Dwork, &w);
  PetscCall(PetscFree3(work, D, Dwork));
  PetscCall(StartWorkDestroy(&w));
  if (ierr) {
    PetscCall(AlongDestroy(&a));
    PetscCall(ierr);
  }
  d->along = a;
  PetscFunctionReturn(0);
}

/*
  Body coordinates z of a mode (powertrain_mounts.md 8.1): per body, in the file's order, the displacement of its centre
  of mass and, for a rigid body, the small rotation vector phi, both in ground axes. A free motion dq = N y turns the
  axes (u, v, w) by du = phi x u, ..., and for any orthonormal triad (1/2) sum_e e x (phi x e) = phi, so
  phi = (u x du + v x dv + w x dw) / 2 at the initial pose. T = Z N.
*/
static PetscErrorCode DescribedModeCoordinates_Private(MbsModel model, PetscInt nz, PetscReal T[], PetscReal *work)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq, row = 0;
  PetscReal     *q = work, *v = q + nq, *G = v + nq, *s = G + nc * nq, *VT = s + nq + nc, *N = VT + nq * nq;

  PetscFunctionBeginUser;
  PetscCall(StartPose(model, q, v));
  PetscCall(FreeMotions(model, q, G, s, VT, N));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;

    for (PetscInt j = 0; j < m; j++) {
      const PetscReal *dq = N + j * nq + o;

      for (PetscInt k = 0; k < 3; k++) T[row + k + j * nz] = dq[k];
      for (PetscInt e = 0; body->rigid && e < 3; e++) {
        const PetscReal *axis = q + o + 3 + 3 * e, *daxis = dq + 3 + 3 * e;

        for (PetscInt k = 0; k < 3; k++) T[row + 3 + k + j * nz] += 0.5 * (axis[(k + 1) % 3] * daxis[(k + 2) % 3] - axis[(k + 2) % 3] * daxis[(k + 1) % 3]);
      }
    }
    row += body->rigid ? 6 : 3;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedModeCoordinates(MbsModel model, PetscInt *nz, PetscReal **T, char **what)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, size = 64;
  PetscReal     *work;

  PetscFunctionBeginUser;
  *nz = 0;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    *nz += desc->body[b].rigid ? 6 : 3;
    size += MBS_NAME_LEN + 48;
  }
  PetscCall(PetscCalloc1(*nz * model->nq, T));
  PetscCall(PetscCalloc1(size, what));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    PetscCall(MbsStrlcat(*what, b ? "; " : "", size));
    PetscCall(MbsStrlcat(*what, desc->body[b].name, size));
    PetscCall(MbsStrlcat(*what, desc->body[b].rigid ? ": u_x u_y u_z [m] phi_x phi_y phi_z [rad]" : ": u_x u_y u_z [m]", size));
  }
  PetscCall(PetscCalloc1(3 * nq + nc * nq + nc + nq * nq + nq * model->nq, &work));
  MbsCallCleanup(DescribedModeCoordinates_Private(model, *nz, *T, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/*
  The kinetic-energy families of a model with flexible bodies (beam_bushings.md 8.1): a flexible body is taken as a beam
  along its body x axis, and each pair (slot, body axis a) of its coordinates belongs to one family: the frame's r
  along x axial, along y, z the bending in that plane; u = e_x turning about z (its y part) y-bending, about y (z part)
  z-bending; the y part of w and the z part of v (the turn about x) torsion, the x parts of v and w the bending of
  their plane; a mode's slots gamma_jk the family of mode j, torsion if its nodes do not move (max |Phi_i|^2 m below
  1e-9), else the body axis of its largest modal mass sum_i S(f_jk, f_jk). Rigid bodies and point masses are a fifth
  family. With P_F the projector on a family's pairs, M_F = N^T P_F M N sums to the linearisation's M over F, so
  Re(x^H M_F x) / x^H M x are shares of the kinetic energy of mode x that add up to 1.
*/
static const char *const Family[] = {"axial", "y-bending", "z-bending", "torsion", "other bodies"};

static PetscInt FlexibleModeFamily(const MbsFlexible *flex, PetscInt j)
{
  PetscInt  ns = flex->nslot, best = 0;
  PetscReal mass = flex->slot_mass[0], move = 0, share[3];

  for (PetscInt i = 0; i < flex->nnode; i++) {
    const PetscReal *phi = flex->shape + 3 * flex->nmode * i + 3 * j;

    move = PetscMax(move, (PetscSqr(phi[0]) + PetscSqr(phi[1]) + PetscSqr(phi[2])) * mass);
  }
  if (move < 1e-9) return 3;
  for (PetscInt k = 0; k < 3; k++) {
    PetscInt slot = 4 + 3 * j + k;

    share[k] = flex->slot_mass[slot * ns + slot];
    if (share[k] > share[best]) best = k;
  }
  return best;
}

static PetscErrorCode DescribedEnergyFamilies_Private(MbsModel model, PetscInt nfamily, PetscReal MF[], PetscReal *work)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq;
  PetscReal     *q = work, *v = q + nq, *G = v + nq, *s = G + nc * nq, *VT = s + nq + nc, *N = VT + nq * nq, *MN = N + nq * m, *W = MN + nq * m;
  /* the family of (rigid slot r, u, v, w; body axis x, y, z) */
  const PetscInt rigid[4][3] = {
    {0, 1, 2},
    {0, 1, 2},
    {1, 1, 3},
    {2, 3, 2}
  };

  PetscFunctionBeginUser;
  PetscCall(StartPose(model, q, v));
  PetscCall(FreeMotions(model, q, G, s, VT, N));
  for (PetscInt j = 0; j < m; j++) AddMassTimes(desc, model->p, N + j * nq, MN + j * nq);
  for (PetscInt f = 0; f < nfamily; f++) {
    PetscCall(PetscArrayzero(W, nq * m));
    for (PetscInt b = 0; b < desc->nbody; b++) {
      const MbsBody *body = &desc->body[b];
      PetscInt       o = body->offset, size = body->flexible ? 3 * body->flexible->nslot : body->rigid ? 12 : 3;

      if (!body->flexible) {
        for (PetscInt j = 0; f == 4 && j < m; j++)
          for (PetscInt i = 0; i < size; i++) W[o + i + j * nq] = MN[o + i + j * nq];
        continue;
      }
      for (PetscInt slot = 0; slot < body->flexible->nslot; slot++)
        for (PetscInt a = 0; a < 3; a++) {
          const PetscReal *e = body->R0 + 3 * a;

          if ((slot < 4 ? rigid[slot][a] : FlexibleModeFamily(body->flexible, (slot - 4) / 3)) != f) continue;
          for (PetscInt j = 0; j < m; j++) {
            PetscReal *w = W + o + 3 * slot + j * nq, *mn = MN + o + 3 * slot + j * nq, along = e[0] * mn[0] + e[1] * mn[1] + e[2] * mn[2];

            for (PetscInt k = 0; k < 3; k++) w[k] += along * e[k];
          }
        }
    }
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt j = 0; j < m; j++) {
        PetscReal sum = 0;

        for (PetscInt k = 0; k < nq; k++) sum += N[k + i * nq] * W[k + j * nq];
        MF[f * m * m + i + j * m] = sum;
      }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedEnergyFamilies(MbsModel model, PetscInt *nfamily, PetscReal **MF, char **names)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq, nflexible = 0, size = 0;
  PetscReal     *work;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) nflexible += desc->body[b].flexible != NULL;
  *nfamily = nflexible ? (nflexible < desc->nbody ? 5 : 4) : 0;
  if (!*nfamily) PetscFunctionReturn(0);
  for (PetscInt f = 0; f < *nfamily; f++) size += (PetscInt)strlen(Family[f]) + 2;
  PetscCall(PetscCalloc1(size, names));
  for (PetscInt f = 0; f < *nfamily; f++) {
    PetscCall(MbsStrlcat(*names, f ? ", " : "", size));
    PetscCall(MbsStrlcat(*names, Family[f], size));
  }
  PetscCall(PetscCalloc1(*nfamily * m * m, MF));
  PetscCall(PetscCalloc1(2 * nq + nc * nq + nq + nc + nq * nq + 3 * nq * m, &work));
  MbsCallCleanup(DescribedEnergyFamilies_Private(model, *nfamily, *MF, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/*
  The engine speed of the engine-order loads: the file's, overridden by -stationary_rpm, -ramp_rpm, -ramp_time,
  -speed_profile; the accelerometers' solve
*/
static PetscErrorCode DescribedSetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  Described     *d         = (Described *)model->data;
  MbsDescription desc      = Description(model);
  PetscBool      augmented = d->augmented;

  PetscFunctionBeginUser;
  if (desc->engine_order) PetscCall(MbsSpeedProfileSetFromOptions(PetscOptionsObject, &desc->speed));
  model->speed  = desc->engine_order ? &desc->speed : NULL;
  d->view_stale = PETSC_TRUE;
  /* the speed may have changed */
  d->jacobian.point[0].set = d->jacobian_p.point[0].set = d->jacobian_p.point[1].set = d->residual_point.set = d->dense_point.set = PETSC_FALSE;
  PetscCall(PetscOptionsBool("-accelerations_augmented",
                             "Accelerometers read the accelerations solved from (q, v, t) by [M Phi_q^T; Phi_q 0] [a; l] = [f; -(Phi_q v)_q v], not M^-1 (f - Phi_q^T lambda) with the state's lambda, "
                             "whose step-to-step oscillation under Crank-Nicolson the window integrals of orders cancel but instantaneous values keep (always on with a flexible body)",
                             "MbsModelChannels", augmented, &augmented, NULL));
  augmented = (PetscBool)(augmented || d->flexible);
  if (augmented != d->augmented) PetscCall(PetscFree3(d->channel_work, d->channel_used, d->channel_pivots)); /* sized for the other solve */
  d->augmented = augmented;
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedDestroy(MbsModel model)
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(MbsDescriptionDestroy(&d->desc));
  PetscCall(PetscFree3(d->body_row, d->row, d->row_owner));
  PetscCall(PetscFree3(d->sensor, model->channel_name, model->channel_unit));
  PetscCall(PetscFree(d->view_body));
  PetscCall(PetscFree4(d->global, d->local, d->index, d->param_start));
  PetscCall(PetscFree(d->param));
  PetscCall(PetscFree2(d->support_start, d->support));
  PetscCall(PetscFree(d->jacobian.slot));
  PetscCall(PetscFree2(d->jacobian.ia, d->jacobian.ja));
  PetscCall(PetscFree(d->jacobian.values0));
  PetscCall(PetscFree(d->jacobian_p.slot));
  PetscCall(PetscFree(d->jacobian_p.cached[0]));
  for (PetscInt k = 0; k < 2; k++) PetscCall(PetscFree(d->jacobian.point[k].key));
  for (PetscInt k = 0; k < 2; k++) PetscCall(PetscFree(d->jacobian_p.point[k].key));
  PetscCall(PetscFree(d->residual_u));
  PetscCall(PetscFree(d->residual_point.key));
  PetscCall(PetscFree2(d->dense_u, d->dense_udot));
  PetscCall(PetscFree(d->dense_point.key));
  PetscCall(PetscFree(d->column));
  PetscCall(PetscFree(d->state_local));
  PetscCall(PetscFree3(d->channel_work, d->channel_used, d->channel_pivots));
  PetscCall(PetscFree2(d->free_motions, d->free_motions_p));
  PetscCall(AlongDestroy(&d->along));
  PetscCall(PetscFree4(d->hess_start, d->grad_start, d->rate_start, d->value0));
  PetscCall(PetscFree5(d->hess_i, d->hess_j, d->hess_at, d->hess, d->rate_at));
  PetscCall(PetscFree2(d->grad_i, d->grad0));
  PetscCall(PetscFree5(d->entry_row, d->entry_col, d->entry_value, d->row_grad, d->row_rate));
  PetscCall(PetscFree4(d->reduce, d->free, d->kept, d->pinned));
  PetscCall(PetscFree(d->row_full));
  for (PetscInt k = 0; k < 4; k++) PetscCall(PetscFree(d->full[k]));
  PetscCall(PetscFree(d->full_jac));
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}

/* k (none if negative) into found[0..n) unless it is there */
static void AddOnce(PetscInt found[], PetscInt *n, PetscInt k)
{
  for (PetscInt j = 0; j < *n; j++)
    if (found[j] == k) return;
  if (k >= 0) found[(*n)++] = k;
}

/* The parameters of el's value and harmonic fields, of a history's scale, of a force's nonlinear laws (their
   coefficients el->law[i].c and a table's knots el->law[i].knot, force_law.c), of its points' coordinates and of its
   axis's components (geometry.c) and of its frame's entries (bushing.c), each once, into list (may be NULL); their
   number */
static PetscInt ElementParameters(const MbsElement *el, PetscInt list[])
{
  PetscInt found[MBS_MAX_VALUE + 4 * MBS_MAX_HARMONICS + 2 * MBS_MAX_VALUE * MBS_MAX_LAW + MBS_MAX_GEOMETRY + 6 + 6 + 9], n = 0;

  for (PetscInt g = 0; g < el->ngeometry; g++) AddOnce(found, &n, el->geometry[g].param);
  for (PetscInt k = 0; k < 9 && el->nframe; k++) AddOnce(found, &n, el->frame[k].param);
  for (PetscInt c = 0; c < 3 && el->naxis; c++) AddOnce(found, &n, el->axis[c].param);
  for (PetscInt c = 0; c < 3 && el->cross; c++) AddOnce(found, &n, el->axis_b[c].param);

  for (PetscInt i = 0; i < MBS_MAX_VALUE; i++) AddOnce(found, &n, el->value[i].param);
  for (PetscInt h = 0; h < el->nharmonic; h++)
    for (PetscInt c = 0; c < 4; c++) AddOnce(found, &n, el->harmonic[h][c].param);
  if (el->nnode) AddOnce(found, &n, el->harmonic[0][0].param); /* a force history's scale (force.c) */
  for (PetscInt k = 0; k < 2; k++) {                           /* a taper's start and length, a sweep's f0, f1, t0, t1 */
    AddOnce(found, &n, el->ramp[k].param);
    AddOnce(found, &n, el->sweep.f[k].param);
    AddOnce(found, &n, el->sweep.t[k].param);
  }
  for (PetscInt i = 0; i < MBS_MAX_VALUE && el->ops->kind != MBS_ELEMENT_SENSOR; i++) /* a sensor's law array is its own (bushing_force.c) */
    for (PetscInt j = 0; MbsForceLawActive(el, i) && j < el->law[i].n; j++) {
      AddOnce(found, &n, el->law[i].c[j].param);
      AddOnce(found, &n, el->law[i].knot[j].param);
    }
  for (PetscInt j = 0; j < n && list; j++) list[j] = found[j];
  return n;
}

/*
  The views of the elements: the largest element's coordinates, its scratch, the parameters each element's Jp may touch
  (those of its value and harmonic fields, a history's scale and its laws' coefficients: AddForces() zeroes and
  scatters only their columns), and the check that
  every row of an element reads only the element's bodies (its view holds no other).
*/
static PetscErrorCode DescribedViewSetUp(Described *d)
{
  MbsDescription desc = d->desc;
  PetscInt       L    = 0;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), size = 0;

    for (PetscInt k = 0; k < nb; k++) size += BodySize(desc, b[k]);
    L = PetscMax(L, size);
    for (PetscInt r = 0; r < el->nrow; r++)
      for (PetscInt i = 0; i < 2 * el->row[r].nproduct; i++) {
        const MbsVectorMap *map = i % 2 ? &el->row[r].b[i / 2] : &el->row[r].a[i / 2];

        for (PetscInt t = 0; t < map->nterm; t++)
          PetscCheck(map->body[t] == el->body[0] || map->body[t] == el->body[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Model file '%s', line %" PetscInt_FMT ": element '%s' (%s) reads body '%s', which is none of its bodies: its view cannot place it",
                     desc->file, el->line, el->name, el->type, desc->body[map->body[t]].name);
      }
  }
  for (PetscInt b = 0; b < desc->nbody; b++) L = PetscMax(L, BodySize(desc, b));
  d->nlocal = L;
  PetscCall(PetscMalloc1(desc->nbody, &d->view_body));
  PetscCall(PetscArraycpy(d->view_body, desc->body, desc->nbody));
  PetscCall(PetscMalloc1(3 * L * L + 4 * L + desc->nparam, &desc->work)); /* the view's: the elements' scratch (elementimpl.h) */
  PetscCall(PetscMalloc4(L, &d->global, 7 * L + 3 * L * L + L * desc->nparam, &d->local, 4 * L, &d->index, desc->nelement + 1, &d->param_start));
  PetscCall(PetscMalloc1(PetscMax(desc->nparam, 1), &d->column));
  L += MBS_MAX_STATE; /* a state element's block: its coordinates and states */
  PetscCall(PetscMalloc1(2 * MBS_MAX_STATE + L + 3 * L * L + L * desc->nparam, &d->state_local));
  d->jacobian_p.wrt_p = PETSC_TRUE;
  for (PetscInt e = 0, count = 0; e <= desc->nelement; e++) {
    d->param_start[e] = count;
    if (e < desc->nelement) count += ElementParameters(&desc->element[e], NULL);
  }
  PetscCall(PetscMalloc1(PetscMax(d->param_start[desc->nelement], 1), &d->param));
  for (PetscInt e = 0; e < desc->nelement; e++) ElementParameters(&desc->element[e], d->param + d->param_start[e]);
  d->view       = *desc;
  d->view.body  = d->view_body;
  d->view_stale = PETSC_TRUE; /* the rest of setup may change the description */
  PetscFunctionReturn(0);
}

/* The support of each element's Jq, Jv on its view: what its rows read for row_forces, else every coordinate */
static PetscErrorCode DescribedSupportSetUp(Described *d)
{
  MbsDescription desc = d->desc;
  PetscBool     *mark;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(d->nlocal, &mark));
  PetscCall(PetscMalloc2(desc->nelement + 1, &d->support_start, desc->nelement * d->nlocal, &d->support));
  d->support_start[0] = 0;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];
    PetscInt          b[MBS_VIEW_BODIES], nb = ElementBodies(el, b), count = d->support_start[e];
    PetscReal        *lq, *lv;
    MbsDescription    view = View(d, nb, b, NULL, NULL, &lq, &lv);

    for (PetscInt i = 0; i < view->nq; i++) mark[i] = (PetscBool)!el->row_forces;
    for (PetscInt r = 0; r < el->nrow && el->row_forces; r++) MbsBilinearMark(view, &el->row[r], (PetscBool)(el->ngeometry > 0 || el->naxis > 0), mark);
    for (PetscInt i = 0; i < view->nq; i++)
      if (mark[i]) d->support[count++] = i;
    d->support_start[e + 1] = count;
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(0);
}

/* The six rows u.u - 1, v.v - 1, w.w - 1, u.v, v.w, w.u of a rigid body */
static void OrthonormalRows(MbsDescription desc, PetscInt b, MbsBilinear row[6])
{
  const PetscInt pair[6][2] = {
    {0, 0},
    {1, 1},
    {2, 2},
    {0, 1},
    {1, 2},
    {2, 0}
  };

  for (PetscInt r = 0; r < 6; r++) {
    PetscReal    ei[3] = {0, 0, 0}, ej[3] = {0, 0, 0};
    MbsVectorMap a, c;

    ei[pair[r][0]] = 1;
    ej[pair[r][1]] = 1;
    MbsMapDirection(desc, b, ei, &a);
    MbsMapDirection(desc, b, ej, &c);
    row[r] = (MbsBilinear){0};
    MbsBilinearProduct(&a, &c, 1, &row[r]);
    row[r].c = r < 3 ? -1 : 0;
  }
}

static PetscErrorCode PlanarSetUp(MbsModel, Described *, PetscInt);

/* The rows, views and sizes; a the ground axis normal to the plane of a planar model, -1: 3D */
static PetscErrorCode DescribedSetUp(MbsModel model, Described *d, PetscInt a)
{
  MbsDescription desc = d->desc;
  PetscInt       r    = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    desc->body[b].offset = desc->nq;
    desc->nq += 3 * MbsBodySlots(desc, b);
    d->nbody_row += desc->body[b].rigid ? 6 : 0;
    d->nbody_row += desc->body[b].flexible ? 8 * desc->body[b].flexible->nmode : 0;
  }
  desc->nc = d->nbody_row;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (desc->element[e].ops->kind == MBS_ELEMENT_CONSTRAINT) {
      desc->element[e].first_row = desc->nc;
      desc->nc += desc->element[e].nrow;
    }
    if (desc->element[e].nstate) {
      desc->element[e].first_state = desc->ns;
      desc->ns += desc->element[e].nstate;
    }
  }
  PetscCall(PetscMalloc3(d->nbody_row, &d->body_row, desc->nc, &d->row, desc->nc, &d->row_owner));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    PetscInt count = 0;

    if (!desc->body[b].rigid) continue;
    OrthonormalRows(desc, b, d->body_row + r);
    count = 6;
    if (desc->body[b].flexible) {
      MbsFlexibleRows(desc, b, d->body_row + r + 6);
      count += 8 * desc->body[b].flexible->nmode;
    }
    for (PetscInt i = 0; i < count; i++, r++) {
      d->row[r]       = &d->body_row[r];
      d->row_owner[r] = -1 - b;
    }
  }
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (desc->element[e].ops->kind != MBS_ELEMENT_CONSTRAINT) continue;
    for (PetscInt i = 0; i < desc->element[e].nrow; i++, r++) {
      d->row[r]       = &desc->element[e].row[i];
      d->row_owner[r] = e;
    }
    if (desc->element[e].motion) d->rheonomic = PETSC_TRUE;
    if (desc->element[e].ngeometry || desc->element[e].row_p || desc->element[e].naxis) d->joint_geometry = PETSC_TRUE;
    if (desc->element[e].row_p && !desc->element[e].motion) d->moves_pose = PETSC_TRUE; /* a prescribed motion's row holds at the file's pose at every p (prescribed.c) */
    for (PetscInt g = 0; g < desc->element[e].ngeometry; g++)
      if (strcmp(desc->element[e].geometry[g].field, "point")) d->moves_pose = PETSC_TRUE;
    if (desc->element[e].cross && desc->element[e].naxis) d->moves_pose = PETSC_TRUE; /* a universal's axes stop being perpendicular at the file's pose */
  }
  for (PetscInt b = 0; b < desc->nbody; b++) d->start_p = (PetscBool)(d->start_p || desc->body[b].start_p);
  if (d->start_p) d->moves_pose = PETSC_TRUE; /* the file's state itself moves: projected onto the joints */
  for (PetscInt e = 0; e < desc->nelement; e++) {
    MbsElement *el = &desc->element[e];

    if (el->nstate && (el->ngeometry || el->nframe)) d->state_geometry = PETSC_TRUE;
    if (el->nframe) d->frame = PETSC_TRUE;
    if (!el->takes_input) continue;
    PetscCheck(model->ncontrol < MBS_MAX_CONTROL, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s': more than %d forces with input: true", desc->file, el->line, el->name, MBS_MAX_CONTROL);
    d->control_element[model->ncontrol]     = el;
    model->control_input[model->ncontrol++] = el->name;
    if (d->input_element) continue;
    d->input_element   = el;
    model->nodal_input = PETSC_TRUE;
  }
  PetscCall(DescribedViewSetUp(d));
  PetscCall(DescribedSupportSetUp(d));
  PetscCall(RowPatternsSetUp(d));
  PetscCall(PlanarSetUp(model, d, a));
  PetscCall(MbsModelSetUp_Private(model, 2 * d->nq_free + 2 * d->nc_kept + desc->ns, d->nq_free - d->nc_kept, desc->nparam, desc->param_info));
  for (PetscInt i = 2 * d->nq_free; i < 2 * d->nq_free + 2 * d->nc_kept; i++) model->differential[i] = PETSC_FALSE;
  PetscCall(PetscMalloc1(NFull(model), &d->residual_u));
  PetscCall(PointKeyCreate(model, &d->residual_point));
  PetscCall(PointKeyCreate(model, &d->dense_point));
  PetscCall(PointKeyCreate(model, &d->jacobian.point[0]));
  for (PetscInt k = 0; k < 2; k++) PetscCall(PointKeyCreate(model, &d->jacobian_p.point[k]));
  /* measured on the chain (CN 2.5 ms, 5 s): the Jacobian barely changes from step to step; a fresh one every 5th Newton
     iteration takes 1176 factorisations instead of 5628. Newton then converges linearly, and stops only when the error
     its contraction leaves is at rounding (simulate.c): the chain's forward 0.44 s CPU against 1.06 s with fresh
     Jacobians, its |Phi_q v| over 20 s 1.3e-13 against 2.4e-14 (test_drift). Started from the parabola through the
     last three states (a lagged Newton contracts linearly, so every digit its start has right saves iterations) and
     with a fresh Jacobian also when an iteration contracts by less than half (simulate.c), at most every 20th: per
     step 3.1 iterations and 0.19 Jacobians, against 4.0 and 0.80 from the last state every 5th (CPU 0.070 s against
     0.121 s). Since the multipliers take an alternating term in the predictor and their errors count times h in the
     test (simulate.c), the quartic through the last five states (six for the multipliers) takes 2.0 iterations and 0.10
     Jacobians per step, the parabola 2.8 and 0.14 */
  model->jacobian_lag       = 20;
  model->newton_predictor   = 4;
  model->newton_multipliers = PETSC_TRUE;
  /* a flexible body's modal stiffness acts on coordinates without mass of their own (flexible.c): with Jacobians 5
     iterations old, Newton stagnates at |F| ~ 5e-5 on the swinging beam of inputs/models/flexible/pendulum.yaml at
     t = 0.076 s whatever the step; with fresh ones it keeps the constraints to 2e-14 over 2 s (test_drift) */
  for (PetscInt b = 0; b < desc->nbody; b++)
    if (desc->body[b].flexible) {
      model->jacobian_lag     = 1;
      model->newton_predictor = 0;
      d->flexible             = PETSC_TRUE;
      d->augmented            = PETSC_TRUE;
    }
  PetscFunctionReturn(0);
}

/* J (n x n) += the model's rows and columns of A (n_full x n_full) */
static void AddReducedSquare(Described *d, PetscInt n, const PetscReal A[], PetscReal J[])
{
  for (PetscInt j = 0; j < d->n_full; j++)
    for (PetscInt i = 0; i < d->n_full && d->reduce[j] >= 0; i++)
      if (d->reduce[i] >= 0) J[d->reduce[i] + d->reduce[j] * n] += A[i + j * d->n_full];
}

/*
  The ops of a planar model: each takes the model's U, evaluates in U_full (Full()) and keeps the model's rows (and
  columns) of what it gives (AddReduced()); the sparse matrices map their entries themselves (Sink.map)
*/
static PetscErrorCode PlanarResidual(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal F[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(DescribedResidual(model, t, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), d->full[2]));
  PetscCall(PetscArrayzero(F, model->n));
  AddReduced(d, model->n, 1, d->full[2], F);
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarJacobian(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, PetscReal J[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->full_jac, d->n_full * d->n_full));
  PetscCall(DescribedJacobian(model, t, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), shift, d->full_jac));
  AddReducedSquare(d, model->n, d->full_jac, J);
  PetscFunctionReturn(0);
}

/* out (n x np) += the model's rows of what full (dF/dp, dU(t0)/dp: n_full x np, adding into it) gives at U, U' */
static PetscErrorCode PlanarColumnsP(MbsModel model, PetscErrorCode (*full)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]), PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal out[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->full_jac, d->n_full * model->np));
  PetscCall(full(model, t, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), d->full_jac));
  AddReduced(d, model->n, model->np, d->full_jac, out);
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarJacobianP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal Jp[])
{
  PetscFunctionBeginUser;
  PetscCall(PlanarColumnsP(model, DescribedJacobianP, t, U, Udot, Jp));
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarChannels(MbsModel model, PetscInt nc, const PetscInt channel[], PetscReal t, const PetscReal U[], MbsChannelWeightFn weigh, void *ctx, PetscReal y[], PetscReal w[], PetscReal dydu[], PetscReal dydp[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->full[2], d->n_full));
  PetscCall(DescribedChannels(model, nc, channel, t, Full(d, U, PETSC_FALSE, 0), weigh, ctx, y, w, dydu ? d->full[2] : NULL, dydp));
  if (dydu) AddReduced(d, model->n, 1, d->full[2], dydu);
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarInitialState(MbsModel model, PetscReal t0, PetscReal U[], PetscReal Udot[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->full[0], d->n_full));
  PetscCall(PetscArrayzero(d->full[1], d->n_full));
  PetscCall(DescribedInitialState(model, t0, d->full[0], d->full[1]));
  PetscCall(PetscArrayzero(U, model->n));
  PetscCall(PetscArrayzero(Udot, model->n));
  AddReduced(d, model->n, 1, d->full[0], U);
  AddReduced(d, model->n, 1, d->full[1], Udot);
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarInitialStateP(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscReal dUdp[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(dUdp, model->n * model->np));
  PetscCall(PlanarColumnsP(model, DescribedInitialStateP, t0, U, Udot, dUdp));
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarInitialStateTangent(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscInt ncol, const PetscReal r[], PetscReal dU[], PetscReal dUdot[])
{
  Described     *d  = (Described *)model->data;
  PetscInt       nf = d->n_full, n = model->n;
  PetscReal     *rf, *dUf, *dUdotf;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(nf * ncol, &rf, nf * ncol, &dUf, nf * ncol, &dUdotf));
  for (PetscInt c = 0; c < ncol; c++)
    for (PetscInt i = 0; i < nf; i++) rf[i + c * nf] = d->reduce[i] >= 0 ? r[d->reduce[i] + c * n] : 0;
  ierr = DescribedInitialStateTangent(model, t0, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), ncol, rf, dUf, dUdotf);
  if (!ierr) {
    for (PetscInt i = 0; i < n * ncol; i++) dU[i] = dUdot[i] = 0;
    AddReduced(d, n, ncol, dUf, dU);
    AddReduced(d, n, ncol, dUdotf, dUdot);
  }
  PetscCall(PetscFree3(rf, dUf, dUdotf));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarJacobianSensitivity(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], const PetscReal S[], const PetscReal Sdot[], PetscInt j, PetscReal shift, PetscReal D[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->full_jac, d->n_full * d->n_full));
  PetscCall(DescribedJacobianSensitivity(model, t, Full(d, U, PETSC_FALSE, 0), Full(d, Udot, PETSC_TRUE, 1), Full(d, S, PETSC_TRUE, 2), Full(d, Sdot, PETSC_TRUE, 3), j, shift, d->full_jac));
  AddReducedSquare(d, model->n, d->full_jac, D);
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarInputDirection(MbsModel model, PetscReal t, const PetscReal U[], PetscReal B[])
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->full[2], d->n_full));
  PetscCall(DescribedInputDirection(model, t, Full(d, U, PETSC_FALSE, 0), d->full[2]));
  AddReduced(d, model->n, 1, d->full[2], B);
  PetscFunctionReturn(0);
}

/*
  Pinned coordinates and dropped rows of a model that moves in the plane normal to ground axis a (-model_planar, the
  file's planar:), before the model's sizes are set. A body turns about a only, so the components along a of r, u, v,
  w and the whole axis that lies along a stay at their initial values: pinned. A constraint row that the pinned values
  make constant (its gradient and Hessian on the free coordinates vanish) is dropped, if it holds (its constant is 0),
  and the file refused otherwise. In 3D (a < 0) every coordinate and row is the model's.
*/
static PetscErrorCode PlanarSetUp(MbsModel model, Described *d, PetscInt a)
{
  MbsDescription desc = d->desc;
  PetscInt       nq = desc->nq, nc = desc->nc, nf = 2 * nq + 2 * nc + desc->ns, kq = 0, kc = 0;
  PetscReal     *q, *v, qscale = 1, vscale = 1, tol = 1e-12;
  char           owner[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  d->planar = a;
  d->n_full = nf;
  PetscCall(PetscCalloc4(nf, &d->reduce, nq, &d->free, nc, &d->kept, nf, &d->pinned));
  PetscCall(PetscMalloc1(nq, &d->row_full));
  for (PetscInt k = 0; k < 4; k++) PetscCall(PetscMalloc1(nf, &d->full[k]));
  q = d->pinned;
  v = d->full[0]; /* the initial velocities, while the scratch is free */
  PetscCall(InitialPose(desc, NULL, q, v));
  for (PetscInt i = 0; i < nq; i++) {
    qscale = PetscMax(qscale, PetscAbsReal(q[i]));
    vscale = PetscMax(vscale, PetscAbsReal(v[i]));
  }
  for (PetscInt b = 0; b < desc->nbody && a >= 0; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o = body->offset, axis = body->rigid ? -1 : 0;

    PetscCheck(!body->flexible, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", body '%s': a flexible body in a planar model (%s) is not supported yet; drop planar: (or run -model_planar none)", desc->file, body->line, body->name, d->plane);
    for (PetscInt e = 3; e >= 1 && body->rigid; e--)
      if (PetscAbsReal(q[o + 3 * e + (a + 1) % 3]) <= tol && PetscAbsReal(q[o + 3 * e + (a + 2) % 3]) <= tol) axis = e;
    PetscCheck(axis >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s', line %" PetscInt_FMT ", body '%s': none of its axes u, v, w lies along the plane's normal %c at the initial pose (to 1e-12), so it cannot move in the plane normal to %c (%s)",
               desc->file, body->line, body->name, 'x' + (char)a, 'x' + (char)a, d->plane);
    for (PetscInt i = 0; i < 18; i++) { /* the plane holds the pinned coordinates at the file's values */
      const char *const field[] = {"position", "velocity", "angular_velocity"};
      PetscBool         pin     = (PetscBool)(i < 6 ? i % 3 == a : i < 9 ? i % 3 != a : (i - 9) % 3 == a || (i - 9) / 3 == axis - 1);
      char              what[64];

      if (!pin || body->start[i].param < 0) continue;
      if (i < 9) PetscCall(PetscSNPrintf(what, sizeof(what), "%s's %c", field[i / 3], 'x' + (char)(i % 3)));
      else PetscCall(PetscSNPrintf(what, sizeof(what), "orientation's %c of axis %c", 'x' + (char)((i - 9) % 3), "uvw"[(i - 9) / 3]));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", body '%s': %s is the parameter '%s', which would move the body out of the plane normal to %c (%s); only the in-plane components of position and velocity, the angular velocity about %c and the in-plane entries of the axes other than %c may be parameters: give it a number, or run the file in 3D (-model_planar none)",
              desc->file, body->line, body->name, what, desc->param_info[body->start[i].param].name, 'x' + (char)a, d->plane, 'x' + (char)a, "uvw"[PetscMax(axis - 1, 0)]);
    }
    for (PetscInt i = 0; i < BodySize(desc, b); i++) {
      PetscBool pin = (PetscBool)(i % 3 == a || (body->rigid && i / 3 == axis));

      d->reduce[o + i] = pin ? -1 : 0;
      PetscCheck(!pin || PetscAbsReal(v[o + i]) <= 1e-9 * vscale, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s', line %" PetscInt_FMT ", body '%s': its initial velocity or angular velocity has a part out of the plane normal to %c (its %c_%c moves at %g), which a planar model (%s) holds at zero",
                 desc->file, body->line, body->name, 'x' + (char)a, "ruvw"[i / 3], 'x' + (char)(i % 3), (double)v[o + i], d->plane);
    }
  }
  for (PetscInt r = 0; r < nc; r++) {
    PetscBool constant = (PetscBool)(a >= 0);

    for (PetscInt i = 0; i < nq && constant; i++) d->row_full[i] = 0;
    if (constant) MbsBilinearAddGradient(desc, d->row[r], q, 1, d->row_full, 1);
    for (PetscInt i = 0; i < nq && constant; i++) constant = (PetscBool)(d->reduce[i] < 0 || PetscAbsReal(d->row_full[i]) <= tol * qscale);
    for (PetscInt e = d->hess_start[r]; e < d->hess_start[r + 1] && constant; e++) constant = (PetscBool)(d->hess[e] == 0 || d->reduce[d->hess_i[e]] < 0 || d->reduce[d->hess_j[e]] < 0);
    d->reduce[2 * nq + r] = constant ? -1 : 0;
    if (!constant) continue;
    PetscCall(OwnerName(model, r, owner, sizeof(owner)));
    PetscCheck(PetscAbsReal(MbsBilinearValue(desc, d->row[r], q)) <= 1e-9 * qscale, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: in the plane normal to %c (%s) its constraint %" PetscInt_FMT " is the constant %g, not 0: the initial pose violates the joint out of the plane, which the plane keeps for ever", owner, 'x' + (char)a, d->plane,
               r - (d->row_owner[r] >= 0 ? desc->element[d->row_owner[r]].first_row : 0) + 1, (double)MbsBilinearValue(desc, d->row[r], q));
    PetscCheck(!(d->row_owner[r] >= 0 && desc->element[d->row_owner[r]].motion), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: its prescribed motion drives a direction out of the plane normal to %c, which a planar model (%s) holds fixed", owner, 'x' + (char)a, d->plane);
  }
  for (PetscInt e = 0; e < desc->nelement && a >= 0; e++) {
    const MbsElement *el = &desc->element[e];

    /* the rows dropped at the file's values would move with such a parameter (an axis tilted out of the plane) */
    PetscCheck(!el->ngeometry && !el->row_p && !(el->naxis && el->ops->kind == MBS_ELEMENT_CONSTRAINT), PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): a point, length or axis of a joint or prescribed motion that is a parameter is not supported in a planar model (%s) yet; run it with -model_planar none",
               desc->file, el->line, el->name, el->type, d->plane);
    /* a reaction sensor reads a prescribed motion's multiplier (reaction_force.c), whose dropped row is refused above */
    PetscCheck(!(el->constraint && d->reduce[2 * nq + el->constraint->first_row] < 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Model file '%s', line %" PetscInt_FMT ", sensor '%s': reads a dropped row's multiplier", desc->file, el->line, el->name);
  }
  for (PetscInt i = 0; i < nq; i++) {
    if (d->reduce[i] < 0) continue;
    d->free[kq]  = i;
    d->reduce[i] = kq;
    d->pinned[i] = 0;
    kq++;
  }
  for (PetscInt r = 0; r < nc; r++)
    if (d->reduce[2 * nq + r] >= 0) d->kept[kc++] = r;
  for (PetscInt i = 0; i < nq; i++) d->reduce[nq + i] = d->reduce[i] >= 0 ? kq + d->reduce[i] : -1;
  for (PetscInt k = 0; k < kc; k++) {
    d->reduce[2 * nq + d->kept[k]]      = 2 * kq + k;
    d->reduce[2 * nq + nc + d->kept[k]] = 2 * kq + kc + k;
  }
  for (PetscInt r = 0; r < nc; r++)
    if (d->reduce[2 * nq + r] < 0) d->reduce[2 * nq + nc + r] = -1;
  for (PetscInt j = 0; j < desc->ns; j++) d->reduce[2 * nq + 2 * nc + j] = 2 * kq + 2 * kc + j;
  d->nq_free = kq;
  d->nc_kept = kc;
  if (a >= 0) PetscCall(PetscMalloc1(nf * PetscMax(nf, desc->nparam), &d->full_jac));
  PetscFunctionReturn(0);
}

/* Whether x (m entries, coordinate i of the view at the model's d->global[i], q or v alike) acts on the free
   coordinates of a planar model, where its largest entry there passes 1e-9 of its largest anywhere (as the 3D checks'
   scale); *any: whether it has a non-zero entry at all */
static PetscBool ReadsFree(Described *d, PetscInt m, const PetscReal x[], PetscBool *any)
{
  PetscReal all = 0, in_plane = 0;

  for (PetscInt i = 0; i < m; i++) {
    all = PetscMax(all, PetscAbsReal(x[i]));
    if (d->reduce[d->global[i]] >= 0) in_plane = PetscMax(in_plane, PetscAbsReal(x[i]));
  }
  *any = (PetscBool)(*any || all > 0);
  return (PetscBool)(all > 0 && in_plane > 1e-9 * all);
}

/*
  Before any solve, a planar model refuses a sensor that reads out-of-plane motion only and a force with input: true that
  acts out of the plane only: at the initial state the sensor's dy/dq, dy/dv, dy/da (the element's own, the chain through
  the accelerations aside) are zero on the free coordinates but not on the pinned ones, or the input's unit force is.
  The plane holds that motion and takes that force, so the channel would stay constant, its derivatives zero, and the
  input would drive nothing. A sensor that reads nothing in 3D either (a load of zero stiffness) is not the plane's doing
  and left alone; a reaction sensor reads a kept row's multiplier (a dropped row's prescribed motion is refused before).
*/
static PetscErrorCode PlanarCheckReads(MbsModel model)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, L = d->nlocal, m;
  PetscReal     *U = d->full[0], *a = d->full[1], *dydu = d->full[2], *dyda = d->full[3], y, *lF;
  const char    *normal = "xyz" + d->planar;

  PetscFunctionBeginUser;
  PetscCall(InitialPose(desc, NULL, U, U + nq));
  for (PetscInt k = 0; k < model->nchannel; k++) {
    const MbsElement *el  = &desc->element[d->sensor[k]];
    PetscBool         any = PETSC_FALSE, reads;

    if (el->constraint) continue;
    PetscCall(PetscArrayzero(a, nq));
    PetscCall(PetscArrayzero(dydu, 2 * nq));
    PetscCall(PetscArrayzero(dyda, nq));
    PetscCall(ViewSensor(model, d->sensor[k], U, el->ops->acceleration ? a : NULL, 1, &y, dydu, dyda));
    m     = d->view.nq; /* the sensor's view: its ldq, ldv, lda in d->local (ViewSensor()) */
    reads = ReadsFree(d, m, d->local + 3 * L, &any);
    reads = (PetscBool)(ReadsFree(d, m, d->local + 4 * L, &any) || reads);
    reads = (PetscBool)(ReadsFree(d, m, d->local + 5 * L, &any) || reads);
    PetscCheck(reads || !any, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s', line %" PetscInt_FMT ", sensor '%s' (%s) reads only motion out of the plane normal to %c (%s), which the plane holds: its channel would stay constant and tell nothing of the parameters; measure along a direction in the plane, or run the file in 3D (-model_planar none)",
               desc->file, el->line, el->name, el->type, *normal, d->plane);
  }
  for (PetscInt k = 0; k < model->ncontrol; k++) {
    MbsElement *el  = d->control_element[k];
    PetscBool   any = PETSC_FALSE;

    PetscCall(UnitInputForce(model, el, desc->t0, U, &m, &lF));
    PetscCheck(ReadsFree(d, m, lF, &any) || !any, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s): its input (input: true) acts only out of the plane normal to %c (%s), which the plane takes: the input would move nothing; give it a direction in the plane, or run the file in 3D (-model_planar none)",
               desc->file, el->line, el->name, el->type, *normal, d->plane);
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsModelDescribedFullState - The 3D state of a model described in a file at its state U: a planar model's U with its
  pinned coordinates at their values, their velocities and the dropped rows' multipliers zero; a 3D model's U itself.
  Its size into *n (may be NULL), the state into full (may be NULL: the size only). Not collective. It expands U in the
  model's scratch (Full()), which an evaluation of the model uses as well: not to be called from within one (a
  callback of the model's residual, Jacobian or channels).
@*/
PetscErrorCode MbsModelDescribedFullState(MbsModel model, const PetscReal U[], PetscInt *n, PetscReal full[])
{
  PetscBool described;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(model->type, "described", &described));
  PetscCheck(described, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Model %s is not described in a file: it has no 3D state of a file's bodies", model->type);
  PetscCheck(U || !full, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MbsModelDescribedFullState: the state U is NULL, but its 3D state is asked for");
  if (n) *n = NFull(model);
  if (full) PetscCall(PetscArraycpy(full, Full((Described *)model->data, U, PETSC_FALSE, 0), NFull(model)));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelCreate_Described(MbsModel model)
{
  Described     *d;
  MbsDescription desc;
  PetscInt       planar;
  PetscBool      sensors_p;

  PetscFunctionBeginUser;
  PetscCheck(model->model_file[0], model->comm, PETSC_ERR_ARG_WRONG, "Model described needs its model file: -model_file FILE");
  PetscCall(PetscNew(&d));
  model->data        = d;
  model->ops.destroy = DescribedDestroy; /* from here on, MbsModelDestroy frees what was read even after an error */
  PetscCall(MbsDescriptionRead(model->model_file, &d->desc));
  /* once, beside the read: results name the file as it was read, however often they are written */
  PetscCall(MbsChecksumFile("-model_file", model->model_file, &model->model_file_checksum));
  desc = d->desc;
  MbsOptionsBegin(model->comm, NULL, "Model described", "MbsModel");
  {
    const char *const axes[] = {"x", "y", "z", "none"};
    PetscInt          choice = desc->planar < 0 ? 3 : desc->planar;
    PetscBool         set;

    PetscCall(PetscOptionsEList("-model_planar", "Every body moves in the plane normal to this ground axis and turns about it only, none: in 3D (default: the model file's planar:, else none)", "MbsModelSetType", axes, 4, axes[choice], &choice, &set));
    planar = choice < 3 ? choice : -1;
    PetscCall(PetscStrncpy(model->planar, axes[choice], sizeof(model->planar)));
    if (set) PetscCall(PetscSNPrintf(d->plane, sizeof(d->plane), "-model_planar %s", axes[choice]));
    else PetscCall(PetscSNPrintf(d->plane, sizeof(d->plane), "planar: %s, line %" PetscInt_FMT, axes[choice], desc->planar_line));
  }
  MbsOptionsEnd();
  PetscCall(DescribedSetUp(model, d, planar));
  PetscCall(DescribedCheck(model));
  PetscCall(DescribedChannelsSetUp(model, d));
  if (d->planar >= 0) PetscCall(PlanarCheckReads(model));
  sensors_p                        = SensorsReadP(desc);
  model->ops.residual              = DescribedResidual;
  model->ops.jacobian              = DescribedJacobian;
  model->ops.jacobian_p            = DescribedJacobianP;
  model->ops.jacobian_create       = DescribedJacobianCreate;
  model->ops.jacobian_mat          = DescribedJacobianMat;
  model->ops.jacobian_p_create     = DescribedJacobianPCreate;
  model->ops.jacobian_p_mat        = DescribedJacobianPMat;
  model->ops.output                = DescribedOutput;
  model->ops.output_p              = sensors_p ? DescribedOutputP : NULL;
  model->ops.channel_output        = DescribedChannelOutput;
  model->ops.channel_output_p      = sensors_p ? DescribedChannelOutputP : NULL;
  model->ops.channels              = DescribedChannels;
  model->ops.initial_state         = DescribedInitialState;
  model->ops.initial_state_p       = DescribedInitialStateP;
  model->ops.initial_state_tangent = DescribedInitialStateTangent;
  model->ops.linearize             = DescribedLinearize;
  model->ops.linearize_first_order = DescribedLinearizeFirstOrder;
  model->ops.mode_coordinates      = DescribedModeCoordinates;
  model->ops.linearize_io          = DescribedLinearizeIO;
  model->ops.energy_families       = DescribedEnergyFamilies;
  model->ops.excitation            = DescribedExcitation;
  model->ops.set_from_options      = DescribedSetFromOptions;
  model->constant_mass             = PETSC_TRUE;
  model->output_name               = desc->element[desc->output].name;
  model->output_unit               = desc->element[desc->output].ops->unit;
  model->t0                        = desc->t0;
  model->tf                        = desc->tf;
  model->dt                        = desc->dt;
  model->dt_max                    = desc->dt_max;
  /* the sensitivity equations' second derivatives (optimal input design) */
  model->ops.jacobian_sensitivity = DescribedJacobianSensitivity;
  if (d->input_element) model->ops.input_direction = DescribedInputDirection;
  if (d->frame || ContinuesAlong(d)) model->ops.linearize_along = DescribedLinearizeAlong;
  if (d->planar < 0) PetscFunctionReturn(0);
  model->ops.residual              = PlanarResidual;
  model->ops.jacobian              = PlanarJacobian;
  model->ops.jacobian_p            = PlanarJacobianP;
  model->ops.channels              = PlanarChannels;
  model->ops.initial_state         = PlanarInitialState;
  model->ops.initial_state_p       = PlanarInitialStateP;
  model->ops.initial_state_tangent = PlanarInitialStateTangent;
  model->ops.jacobian_sensitivity  = PlanarJacobianSensitivity;
  if (d->input_element) model->ops.input_direction = PlanarInputDirection;
  PetscFunctionReturn(0);
}
