/*
  The cost (and optionally its gradient) on a grid of the two identified parameters, for contour plots:
  -scan_grid lo1,hi1,n1,lo2,hi2,n2 in the order of -identify. The grid points are dealt out to the ranks
  round robin and gathered by a sum in which every entry has one contribution, so the result does not
  depend on the number of ranks. A point whose forward solve fails gets NaN. The scan stands above the objective:
  it evaluates it, and writes its grid through the objective's file hook.

  With a single experiment, the ranks that do not compute it would wait through the whole identification; they
  evaluate grid points meanwhile (MbsScanWorkAhead, the objective's idle work), from the end of the grid, each idle
  rank its own stride of points. MbsScanRun then deals out only the points nobody has evaluated yet. Each point is
  still evaluated once, by the same code on the same inputs, so the grid does not depend on who evaluated it.
*/
#include "identification/identificationimpl.h"
#include <petsctime.h>
#include <math.h>

struct _p_MbsScan {
  MbsObjective obj;
  PetscInt     n[2];
  PetscReal    lo[2], hi[2];
  PetscBool    gradient;
  PetscReal   *J, *grad; /* n[1] x n[0] (x fastest), gradient x 2; NULL until run */
  /* this rank's evaluations: J, gradient and a done flag per point (1: evaluated here), NULL until the first */
  PetscReal *J_local, *g_local, *done;
  PetscInt   next_ahead; /* the next point MbsScanWorkAhead() evaluates, < 0: none left */
};

/*@C
  MbsScanCreate - Reads -scan_grid and -scan_gradient; *scan is NULL when no scan was asked for. Collective.
@*/
PetscErrorCode MbsScanCreate(MbsObjective obj, MbsScan *scan)
{
  PetscReal grid[6] = {0, 0, 0, 0, 0, 0};
  PetscInt  ngrid   = 6;
  PetscBool set, gradient = PETSC_FALSE;

  PetscFunctionBeginUser;
  *scan = NULL;
  MbsOptionsBegin(obj->comm, NULL, "Cost scan", "MbsScan");
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-scan_grid", "Grid lo1,hi1,n1,lo2,hi2,n2 of the two identified parameters (default: no scan)", "MbsScanRun", 0, grid, &ngrid, &set));
  PetscCall(PetscOptionsBool("-scan_gradient", "Also the adjoint gradient at every grid point", "MbsScanRun", gradient, &gradient, NULL));
  MbsOptionsEnd();
  if (!set) PetscFunctionReturn(0);
  PetscCheck(ngrid == 6, obj->comm, PETSC_ERR_ARG_SIZ, "-scan_grid needs six values lo1,hi1,n1,lo2,hi2,n2, got %" PetscInt_FMT, ngrid);
  PetscCheck(obj->nid == 2, obj->comm, PETSC_ERR_ARG_WRONG, "-scan_grid scans two parameters; -identify names %" PetscInt_FMT, obj->nid);
  for (PetscInt d = 0; d < 2; d++)
    PetscCheck(grid[3 * d + 2] >= 2 && grid[3 * d + 2] == PetscFloorReal(grid[3 * d + 2]) && grid[3 * d + 1] > grid[3 * d], obj->comm, PETSC_ERR_ARG_OUTOFRANGE, "-scan_grid: parameter %s needs lo < hi and an integer n >= 2, got %g,%g,%g",
               obj->model->param_info[obj->id[d]].name, (double)grid[3 * d], (double)grid[3 * d + 1], (double)grid[3 * d + 2]);
  /* checked here, before the first solve: found by the scan itself, the error would come after a whole identification */
  for (PetscInt d = 0; d < 2; d++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[d]];

    PetscCheck(grid[3 * d] >= info->lower && grid[3 * d + 1] <= info->upper, obj->comm, PETSC_ERR_ARG_OUTOFRANGE, "-scan_grid: parameter %s spans [%g, %g] %s, outside its physical bounds [%g, %g]; give a grid inside them", info->name, (double)grid[3 * d], (double)grid[3 * d + 1],
               info->unit, (double)info->lower, (double)info->upper);
  }
  PetscCall(PetscNew(scan));
  (*scan)->obj      = obj;
  (*scan)->gradient = gradient;
  for (PetscInt d = 0; d < 2; d++) {
    (*scan)->lo[d] = grid[3 * d];
    (*scan)->hi[d] = grid[3 * d + 1];
    (*scan)->n[d]  = (PetscInt)grid[3 * d + 2];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsScanDestroy(MbsScan *scan)
{
  PetscFunctionBeginUser;
  if (!*scan) PetscFunctionReturn(0);
  PetscCall(PetscFree2((*scan)->J, (*scan)->grad));
  PetscCall(PetscFree3((*scan)->J_local, (*scan)->g_local, (*scan)->done));
  PetscCall(PetscFree(*scan));
  PetscFunctionReturn(0);
}

static PetscReal MbsScanCoordinate_Private(MbsScan scan, PetscInt d, PetscInt i)
{
  return scan->lo[d] + i * (scan->hi[d] - scan->lo[d]) / (scan->n[d] - 1);
}

/* The arrays of this rank's evaluations, and the first point it may evaluate ahead: idle rank k of m takes npoint - 1 - k,
   npoint - 1 - k - m, ... (the ranks without the single experiment are idle) */
static PetscErrorCode MbsScanSetUpLocal_Private(MbsScan scan)
{
  MbsObjective obj    = scan->obj;
  PetscInt     npoint = scan->n[0] * scan->n[1];
  PetscMPIInt  rank;

  PetscFunctionBeginUser;
  if (scan->J_local) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCall(PetscCalloc3(npoint, &scan->J_local, 2 * npoint, &scan->g_local, npoint, &scan->done));
  scan->next_ahead = obj->nexp == 1 && rank != obj->exp[0].rank ? npoint - 1 - (rank - (rank > obj->exp[0].rank)) : -1;
  PetscFunctionReturn(0);
}

/* J (and the gradient) at grid point `point`, by this rank alone */
static PetscErrorCode MbsScanEvaluatePoint_Private(MbsScan scan, PetscInt point)
{
  MbsObjective obj = scan->obj;
  PetscReal    x[2];
  PetscBool    ok;

  PetscFunctionBeginUser;
  x[0] = MbsScanCoordinate_Private(scan, 0, point % scan->n[0]);
  x[1] = MbsScanCoordinate_Private(scan, 1, point / scan->n[0]);
  PetscCall(MbsObjectiveEvaluateLocal(obj, x, &scan->J_local[point], scan->gradient ? &scan->g_local[2 * point] : NULL, &ok));
  if (!ok) scan->J_local[point] = scan->g_local[2 * point] = scan->g_local[2 * point + 1] = NAN;
  scan->done[point] = 1;
  PetscFunctionReturn(0);
}

/*@C
  MbsScanWorkAhead - Evaluates the next grid point this rank may take before the scan runs (see above), as the
  objective's idle work (MbsObjectiveSetIdleWork); *more says whether there is another. Not collective.
@*/
PetscErrorCode MbsScanWorkAhead(void *ctx, PetscBool *more)
{
  MbsScan     scan = (MbsScan)ctx;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(MbsScanSetUpLocal_Private(scan));
  if (scan->next_ahead >= 0) {
    PetscCallMPI(MPI_Comm_size(scan->obj->comm, &size));
    PetscCall(MbsScanEvaluatePoint_Private(scan, scan->next_ahead));
    scan->next_ahead -= size - 1;
  }
  *more = (PetscBool)(scan->next_ahead >= 0);
  PetscFunctionReturn(0);
}

/*@C
  MbsScanRun - Evaluates the cost on the grid of -scan_grid, but for the points evaluated ahead. Collective.
@*/
PetscErrorCode MbsScanRun(MbsScan scan)
{
  MbsObjective   obj    = scan->obj;
  PetscInt       npoint = scan->n[0] * scan->n[1], ndone = 0, mine, nleft = 0, nahead;
  PetscMPIInt    rank, size;
  PetscReal     *x, *x_entry, *J_entry, *g_entry, *done;
  PetscLogDouble start, last, now;
  PetscLogStage  stage;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCallMPI(MPI_Comm_size(obj->comm, &size));
  /* the objective's parameters and last values are the identification's result, which the result file reports */
  PetscCall(PetscMalloc4(obj->nid, &x, obj->nid, &x_entry, obj->nexp, &J_entry, obj->nexp * obj->nid, &g_entry));
  PetscCall(MbsObjectiveGetValues(obj, x_entry));
  PetscCall(PetscArraycpy(J_entry, obj->J_exp, obj->nexp));
  PetscCall(PetscArraycpy(g_entry, obj->g_exp, obj->nexp * obj->nid));
  PetscCall(PetscFree2(scan->J, scan->grad));
  PetscCall(PetscMalloc2(npoint, &scan->J, 2 * npoint, &scan->grad));
  PetscCall(MbsScanSetUpLocal_Private(scan));
  scan->next_ahead = -1;
  PetscCall(PetscMalloc1(npoint, &done));
  PetscCall(MPIU_Allreduce(scan->done, done, npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  for (PetscInt point = 0; point < npoint; point++) nleft += done[point] == 0;
  nahead = npoint - nleft;
  PetscCall(PetscLogStageRegister("Scan", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscPrintf(obj->comm, "Scanning J on a %" PetscInt_FMT " x %" PetscInt_FMT " grid of %s x %s over %d ranks", scan->n[0], scan->n[1], obj->model->param_info[obj->id[0]].name, obj->model->param_info[obj->id[1]].name, size));
  if (nahead) PetscCall(PetscPrintf(obj->comm, " (%" PetscInt_FMT " points done ahead by idle ranks)", nahead));
  PetscCall(PetscPrintf(obj->comm, "\n"));
  PetscCall(PetscTime(&start));
  last = start;
  mine = obj->nexp > 1 ? nleft : (nleft + size - 1) / size; /* points rank 0 evaluates */
  for (PetscInt point = 0, left = 0; point < npoint; point++) {
    if (done[point]) continue;
    if (obj->nexp > 1) { /* all ranks evaluate each point; rank 0 alone keeps the value, so that the gathering sum counts it once */
      PetscReal J, g[2];
      PetscBool ok;

      x[0] = MbsScanCoordinate_Private(scan, 0, point % scan->n[0]);
      x[1] = MbsScanCoordinate_Private(scan, 1, point / scan->n[0]);
      PetscCall(MbsObjectiveEvaluate(obj, x, &J, scan->gradient ? g : NULL, &ok));
      if (rank == 0) {
        scan->J_local[point] = ok ? J : NAN;
        if (scan->gradient) PetscCall(PetscArraycpy(&scan->g_local[2 * point], g, 2));
        if (!ok) scan->g_local[2 * point] = scan->g_local[2 * point + 1] = NAN;
      }
    } else if (left++ % size == rank) PetscCall(MbsScanEvaluatePoint_Private(scan, point));
    else continue;
    ndone++;
    PetscCall(PetscTime(&now));
    if (rank == 0 && now - last > 10) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  scan: %" PetscInt_FMT " of %" PetscInt_FMT " points on rank 0, %.0f s, remaining ~%.0f s\n", ndone, mine, now - start, (now - start) / ndone * (mine - ndone)));
      last = now;
    }
  }
  PetscCall(MPIU_Allreduce(scan->J_local, scan->J, npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(MPIU_Allreduce(scan->g_local, scan->grad, 2 * npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&now));
  PetscCall(PetscPrintf(obj->comm, "Scan done: %" PetscInt_FMT " points in %.1f s\n", npoint, now - start));
  PetscCall(PetscFree3(scan->J_local, scan->g_local, scan->done));
  PetscCall(MbsObjectiveSetValues(obj, x_entry));
  PetscCall(PetscArraycpy(obj->J_exp, J_entry, obj->nexp));
  PetscCall(PetscArraycpy(obj->g_exp, g_entry, obj->nexp * obj->nid));
  PetscCall(PetscFree(done));
  PetscCall(PetscFree4(x, x_entry, J_entry, g_entry));
  PetscFunctionReturn(0);
}

/*@C
  MbsScanWrite - /scan/{x, y, J[, gradient]} of the scan ctx (may be NULL) when it was run: an MbsObjectiveWriteFn.
  Not collective.
@*/
PetscErrorCode MbsScanWrite(MbsObjective obj, MbsH5Writer *writer, void *ctx)
{
  MbsScan    scan = (MbsScan)ctx;
  PetscInt   dims[3];
  PetscReal *axis;

  PetscFunctionBeginUser;
  if (!scan || !scan->J) PetscFunctionReturn(0);
  dims[0] = scan->n[1];
  dims[1] = scan->n[0];
  dims[2] = 2;
  for (PetscInt d = 0; d < 2; d++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[d]];

    PetscCall(PetscMalloc1(scan->n[d], &axis));
    for (PetscInt i = 0; i < scan->n[d]; i++) axis[i] = MbsScanCoordinate_Private(scan, d, i);
    PetscCall(MbsH5WriteReals(writer, d ? "/scan/y" : "/scan/x", 1, &scan->n[d], axis, info->unit));
    PetscCall(MbsH5WriteAttribute(writer, d ? "/scan/y" : "/scan/x", "parameter", info->name));
    PetscCall(PetscFree(axis));
  }
  PetscCall(MbsH5WriteReals(writer, "/scan/J", 2, dims, scan->J, "cost"));
  if (scan->gradient) PetscCall(MbsH5WriteReals(writer, "/scan/gradient", 3, dims, scan->grad, "cost per parameter unit"));
  PetscFunctionReturn(0);
}
