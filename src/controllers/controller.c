/*
  A black-box controller behind the C interface of mbs_controller.h (../shared/models/pid_sdof.md, section 2): a
  built-in one, or one loaded by path from a shared library with dlopen (-controller ./lib.so -controller_symbol
  prefix finds <prefix>_controller). mbsid reaches the controller only through init and step, and saves and restores
  its state as bytes; every output is checked to be finite, so a misbehaving black box stops the run with its
  library, symbol, time and input named instead of poisoning the simulation.
*/
#define _GNU_SOURCE /* dladdr1: the type of the entry symbol */
#include "controllers/controllerimpl.h"
#include <dlfcn.h>
#include <link.h>

/* Outputs beyond this magnitude are refused: no force a simulation can take, and their squares overflow */
#define MBS_CONTROLLER_MAX_OUTPUT 1e150

/*
  A plug-in that calls exit() ends mbsid with the plug-in's status (0 says success) without a result or a word. While
  mbsid is inside a plug-in's function, an atexit handler turns such an exit into a failure naming the controller.
*/
static struct {
  const char *call; /* the plug-in's function mbsid is inside, NULL outside */
  const char *symbol, *source;
  PetscReal   t;
} MbsControllerInside;

static void MbsControllerExitGuard(void)
{
  if (!MbsControllerInside.call) return;
  fprintf(stderr, "mbsid: controller %s of %s called exit() inside %s at t = %.9g s: the run stops without a result\n", MbsControllerInside.symbol, MbsControllerInside.source, MbsControllerInside.call, (double)MbsControllerInside.t);
  fflush(stderr);
  _exit(PETSC_ERR_LIB);
}

static void MbsControllerEnter_Private(MbsController c, const char call[], PetscReal t)
{
  static PetscBool guarded = PETSC_FALSE;

  if (!guarded) guarded = (PetscBool)(atexit(MbsControllerExitGuard) == 0);
  MbsControllerInside.call   = call;
  MbsControllerInside.symbol = c->symbol;
  MbsControllerInside.source = c->source;
  MbsControllerInside.t      = t;
}

static void MbsControllerLeave_Private(void)
{
  MbsControllerInside.call = NULL;
}

static PetscFunctionList MbsControllerList = NULL;

static PetscErrorCode MbsControllerFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsControllerList));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsControllerRegisterAll_Private(void)
{
  PetscFunctionBeginUser;
  if (MbsControllerList) PetscFunctionReturn(0);
  PetscCall(PetscRegisterFinalize(MbsControllerFinalizePackage));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "pid", pid_controller));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "pid_switch", pid_switch_controller));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "integrator1", integrator1_controller));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "integrator2", integrator2_controller));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "integrator3", integrator3_controller));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "derivative1", derivative1_controller));
  PetscCall(PetscFunctionListAdd(&MbsControllerList, "derivative2", derivative2_controller));
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerCreate - An empty controller; MbsControllerSetFromOptions() or MbsControllerLoad() chooses it. Not collective.
@*/
PetscErrorCode MbsControllerCreate(MPI_Comm comm, MbsController *controller)
{
  PetscFunctionBeginUser;
  PetscCall(MbsControllerRegisterAll_Private());
  PetscCall(PetscNew(controller));
  (*controller)->comm = comm;
  PetscCall(PetscStrncpy((*controller)->option, "-controller", sizeof((*controller)->option)));
  PetscFunctionReturn(0);
}

/* What a plug-in's entry returned must be usable before anything of it is called */
static PetscErrorCode MbsControllerCheckPlugin_Private(MbsController c)
{
  const mbs_controller_plugin *plugin = c->plugin;
  const char                  *where  = c->source;

  PetscFunctionBeginUser;
  PetscCheck(plugin, c->comm, PETSC_ERR_LIB, "Controller %s of %s returned NULL instead of its description", c->symbol, where);
  PetscCheck(plugin->abi_version == MBS_CONTROLLER_ABI_VERSION, c->comm, PETSC_ERR_LIB, "Controller %s of %s was built for controller ABI version %d; this mbsid needs version %d: rebuild it against src/controllers/mbs_controller.h", c->symbol, where,
             plugin->abi_version, MBS_CONTROLLER_ABI_VERSION);
  PetscCheck(plugin->controller.init && plugin->controller.step, c->comm, PETSC_ERR_LIB, "Controller %s of %s has no %s function", c->symbol, where, plugin->controller.init ? "step" : "init");
  PetscCheck(plugin->controller.state_bytes > 0 && plugin->controller.state_bytes <= (1 << 20), c->comm, PETSC_ERR_LIB, "Controller %s of %s declares a state of %zu bytes; it must be between 1 byte and 1 MiB", c->symbol, where, plugin->controller.state_bytes);
  PetscCheck(plugin->nparams >= 0 && plugin->nparams <= 64 && (plugin->nparams == 0 || (plugin->param_names && plugin->param_defaults)), c->comm, PETSC_ERR_LIB, "Controller %s of %s declares %d parameters without names and defaults for each (at most 64)", c->symbol, where,
             plugin->nparams);
  for (int i = 0; i < plugin->nparams; i++)
    PetscCheck(plugin->param_names[i] && plugin->param_names[i][0], c->comm, PETSC_ERR_LIB, "Controller %s of %s declares parameter %d of %d without a name (param_names[%d] is %s); every parameter needs one", c->symbol, where, i + 1, plugin->nparams, i,
               plugin->param_names[i] ? "empty" : "NULL");
  PetscFunctionReturn(0);
}

/* The entry symbol must be a function: calling a data object would jump into data (a crash) */
static PetscErrorCode MbsControllerCheckEntry_Private(MbsController c, const char prefix[], mbs_controller_entry entry)
{
  Dl_info info;
  const ElfW(Sym) *symbol = NULL;
  void *address;

  PetscFunctionBeginUser;
  *(mbs_controller_entry *)&address = entry;
  if (!dladdr1(address, &info, (void **)&symbol, RTLD_DL_SYMENT) || !symbol) PetscFunctionReturn(0); /* no symbol table to ask */
  PetscCheck(ELF64_ST_TYPE(symbol->st_info) == STT_FUNC || ELF64_ST_TYPE(symbol->st_info) == STT_GNU_IFUNC, c->comm, PETSC_ERR_LIB, "Controller library %s: symbol %s (%s_symbol %s) is not a function but %s; it must be const mbs_controller_plugin *%s(void)", c->source, c->symbol, c->option, prefix,
             ELF64_ST_TYPE(symbol->st_info) == STT_OBJECT ? "a data object" : "no function", c->symbol);
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerLoad - Chooses the controller: source is a built-in name (pid, pid_switch, integrator1..3, derivative1..2)
  or the path of a shared library (it contains a '/'), whose function <prefix>_controller describes it. Not collective.
@*/
PetscErrorCode MbsControllerLoad(MbsController c, const char source[], const char prefix[])
{
  mbs_controller_entry entry = NULL;
  char                *slash;

  PetscFunctionBeginUser;
  PetscCheck(!c->plugin, c->comm, PETSC_ERR_ORDER, "The controller is already loaded");
  PetscCall(PetscStrchr(source, '/', &slash));
  if (slash) {
    const char *error;

    PetscCall(PetscStrncpy(c->source, source, sizeof(c->source)));
    PetscCall(PetscSNPrintf(c->symbol, sizeof(c->symbol), "%s_controller", prefix));
    c->library = dlopen(source, RTLD_NOW | RTLD_LOCAL);
    PetscCheck(c->library, c->comm, PETSC_ERR_FILE_OPEN, "Cannot load controller library %s (%s): %s", source, c->option, dlerror());
    (void)dlerror();
    *(void **)&entry = dlsym(c->library, c->symbol);
    error            = dlerror();
    PetscCheck(entry && !error, c->comm, PETSC_ERR_LIB, "Controller library %s has no symbol %s (%s_symbol %s): %s", source, c->symbol, c->option, prefix, error ? error : "it is NULL");
    PetscCall(MbsControllerCheckEntry_Private(c, prefix, entry));
  } else {
    char names[256];

    PetscCall(PetscStrncpy(c->source, "built-in", sizeof(c->source)));
    PetscCall(PetscSNPrintf(c->symbol, sizeof(c->symbol), "%s_controller", source));
    PetscCall(PetscFunctionListFind(MbsControllerList, source, &entry));
    PetscCall(MbsFunctionListNames(MbsControllerList, names, sizeof(names)));
    PetscCheck(entry, c->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown controller '%s' (%s): built-in controllers are %s; a shared library is given by its path (with a '/', e.g. ./libmine.so)", source, c->option, names);
  }
  MbsControllerEnter_Private(c, c->symbol, 0);
  c->plugin = entry();
  MbsControllerLeave_Private();
  PetscCall(MbsControllerCheckPlugin_Private(c));
  PetscCall(PetscCalloc1(c->plugin->controller.state_bytes, &c->state));
  PetscCall(PetscMalloc1(c->plugin->nparams, &c->params));
  for (int i = 0; i < c->plugin->nparams; i++) c->params[i] = c->plugin->param_defaults[i];
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerSetFromOptions - -controller NAME|PATH, -controller_symbol PREFIX, -controller_params v1,...,vn and
  -controller_sensor NAME (the model's channel it reads, MbsControllerGetSensor()), each after the options prefix
  (NULL: none; a second controller's, e.g. "F2_": -F2_controller). Collective.
@*/
PetscErrorCode MbsControllerSetFromOptions(MbsController c, const char options_prefix[])
{
  char source[PETSC_MAX_PATH_LEN] = "pid", prefix[128] = "pid", text[512] = "";

  PetscFunctionBeginUser;
  MbsOptionsBegin(c->comm, options_prefix, "Black-box controller", "controller");
  PetscCall(PetscOptionsString("-controller", "Built-in controller (pid pid_switch integrator1 integrator2 integrator3 derivative1 derivative2) or path of a shared library", "", source, source, sizeof(source), NULL));
  PetscCall(PetscOptionsString("-controller_symbol", "Prefix of the library's entry function <prefix>_controller", "", prefix, prefix, sizeof(prefix), NULL));
  PetscCall(PetscOptionsString("-controller_sensor", "The output channel (sensor) of the model that the controller reads (default: the model's output)", "", c->sensor, c->sensor, sizeof(c->sensor), NULL));
  PetscCall(PetscSNPrintf(c->option, sizeof(c->option), "-%scontroller", options_prefix ? options_prefix : ""));
  if (strchr(source, '/')) PetscCall(MbsFileDeclare(c->comm, c->option, source, PETSC_FALSE, NULL));
  PetscCall(MbsControllerLoad(c, source, prefix));
  for (int i = 0; i < c->plugin->nparams; i++) {
    char value[64];

    PetscCall(PetscSNPrintf(value, sizeof(value), "%s%s=%g", i ? ", " : "", c->plugin->param_names[i], c->plugin->param_defaults[i]));
    PetscCall(MbsStrlcat(text, value, sizeof(text)));
  }
  if (c->plugin->nparams) PetscCall(MbsOptionsRealArrayExact(PetscOptionsObject, "-controller_params", text, "", c->plugin->nparams, c->params, NULL));
  MbsOptionsEnd();
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerGetSensor - The name of the model's channel the controller reads (-controller_sensor), "" for the model's
  output. Not collective.
@*/
PetscErrorCode MbsControllerGetSensor(MbsController c, const char **sensor)
{
  PetscFunctionBeginUser;
  *sensor = c->sensor;
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerSetParams - The values init receives (n must be the controller's count). Not collective.
@*/
PetscErrorCode MbsControllerSetParams(MbsController c, PetscInt n, const PetscReal params[])
{
  PetscFunctionBeginUser;
  PetscCheck(n == c->plugin->nparams, c->comm, PETSC_ERR_ARG_SIZ, "Controller %s takes %d parameters, got %" PetscInt_FMT, c->symbol, c->plugin->nparams, n);
  PetscCall(PetscArraycpy(c->params, params, n));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsControllerCheckOutput_Private(MbsController c, const char call[], PetscReal t, PetscReal y, PetscReal u)
{
  PetscFunctionBeginUser;
  PetscCheck(!PetscIsInfOrNanReal(u), c->comm, PETSC_ERR_FP, "Controller %s of %s returned u = %g from %s at t = %.9g s with input y = %.9g", c->symbol, c->source, (double)u, call, (double)t, (double)y);
  PetscCheck(PetscAbsReal(u) <= MBS_CONTROLLER_MAX_OUTPUT, c->comm, PETSC_ERR_FP, "Controller %s of %s returned u = %g from %s at t = %.9g s with input y = %.9g: beyond %g in magnitude, no force a simulation can take", c->symbol, c->source, (double)u, call, (double)t, (double)y, MBS_CONTROLLER_MAX_OUTPUT);
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerInit - init(t0, y0): the controller's output u(t0). Not collective.
@*/
PetscErrorCode MbsControllerInit(MbsController c, PetscReal t0, PetscReal y0, PetscReal *u)
{
  PetscFunctionBeginUser;
  PetscCheck(!PetscIsInfOrNanReal(y0), c->comm, PETSC_ERR_FP, "Controller %s: the input at t = %g s is %g", c->symbol, (double)t0, (double)y0);
  MbsControllerEnter_Private(c, "init", t0);
  c->output = c->plugin->controller.init(c->state, c->params, t0, y0);
  MbsControllerLeave_Private();
  PetscCall(MbsControllerCheckOutput_Private(c, "init", t0, y0, c->output));
  c->started = PETSC_TRUE;
  if (u) *u = c->output;
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerStep - step(t, y, dt): advances from t - dt to t with the new input sample y, returns u(t). Not collective.
@*/
PetscErrorCode MbsControllerStep(MbsController c, PetscReal t, PetscReal y, PetscReal dt, PetscReal *u)
{
  PetscFunctionBeginUser;
  PetscCheck(c->started, c->comm, PETSC_ERR_ORDER, "Controller %s: step before init", c->symbol);
  PetscCheck(dt > 0, c->comm, PETSC_ERR_ARG_OUTOFRANGE, "Controller %s: step of %g s at t = %g s; steps must be positive", c->symbol, (double)dt, (double)t);
  PetscCheck(!PetscIsInfOrNanReal(y), c->comm, PETSC_ERR_FP, "Controller %s: the input at t = %g s is %g", c->symbol, (double)t, (double)y);
  MbsControllerEnter_Private(c, "step", t);
  c->output = c->plugin->controller.step(c->state, t, y, dt);
  MbsControllerLeave_Private();
  PetscCall(MbsControllerCheckOutput_Private(c, "step", t, y, c->output));
  if (u) *u = c->output;
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerGetOutput - u of the last init or step. Not collective.
@*/
PetscErrorCode MbsControllerGetOutput(MbsController c, PetscReal *u)
{
  PetscFunctionBeginUser;
  *u = c->output;
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerSaveCreate - A buffer that MbsControllerSave() fills: the state's bytes and the last output. Not collective.
@*/
PetscErrorCode MbsControllerSaveCreate(MbsController c, void **buffer)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc(c->plugin->controller.state_bytes + sizeof(PetscReal), buffer));
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerSave - bb_save: copies every internal variable (and the last output) into buffer. Not collective.
@*/
PetscErrorCode MbsControllerSave(MbsController c, void *buffer)
{
  PetscFunctionBeginUser;
  bb_save(&c->plugin->controller, c->state, buffer);
  PetscCall(PetscMemcpy((char *)buffer + c->plugin->controller.state_bytes, &c->output, sizeof(PetscReal)));
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerRestore - bb_restore: the controller continues exactly as from the MbsControllerSave() of buffer. Not collective.
@*/
PetscErrorCode MbsControllerRestore(MbsController c, const void *buffer)
{
  PetscFunctionBeginUser;
  bb_restore(&c->plugin->controller, c->state, buffer);
  PetscCall(PetscMemcpy(&c->output, (const char *)buffer + c->plugin->controller.state_bytes, sizeof(PetscReal)));
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerGetParams - The parameters init receives, with their names. Not collective.
@*/
PetscErrorCode MbsControllerGetParams(MbsController c, PetscInt *n, const PetscReal **params, const char *const **names)
{
  PetscFunctionBeginUser;
  if (n) *n = c->plugin->nparams;
  if (params) *params = c->params;
  if (names) *names = c->plugin->param_names;
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerView - Source, symbol, description and parameters. Collective on the viewer.
@*/
PetscErrorCode MbsControllerView(MbsController c, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "Controller %s (%s): %s\n", c->symbol, c->source, c->plugin->description ? c->plugin->description : "no description"));
  for (int i = 0; i < c->plugin->nparams; i++) PetscCall(PetscViewerASCIIPrintf(viewer, "  %s = %g\n", c->plugin->param_names[i], (double)c->params[i]));
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerDestroy - Frees the controller and closes its library. Not collective.
@*/
PetscErrorCode MbsControllerDestroy(MbsController *c)
{
  PetscFunctionBeginUser;
  if (!*c) PetscFunctionReturn(0);
  PetscCall(PetscFree((*c)->state));
  PetscCall(PetscFree((*c)->params));
  if ((*c)->library) dlclose((*c)->library);
  PetscCall(PetscFree(*c));
  PetscFunctionReturn(0);
}
