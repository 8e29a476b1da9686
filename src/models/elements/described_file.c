/*
  The model file (YAML, -model_file): read once with libyaml into the plain structs of elementimpl.h, each entity
  keeping its line, so that every error names the file, the line and the entity. Schema (doc/model-files.md):

    time:       {t0: 0, tf: 2, dt: 1e-3, dt_max: 0}               [s], all optional
    gravity:    [gx, gy, gz]                                       [m/s^2], optional, each may be a parameter
    planar:     x, y or z                                          every body moves in the plane normal to that ground
                                                                   axis and turns about it only (model_described.c), optional
    parameters: NAME: {value: 1000, unit: N/m, lower: 0, upper: 1e9, description: "..."}
    bodies:     NAME: {mass: m, inertia: [Ixx, Iyy, Izz(, Ixy, Iyz, Ixz)], position: [..], orientation: [[u], [v], [w]],
                       velocity: [..], angular_velocity: [..]}     without inertia: a point mass
    elements:   NAME: {type: TYPE, ...fields of the type (one file per type in elements/)}
    output:     NAME of a sensor element
    speed:      {stationary_rpm: N} or {ramp_rpm: [n0, n1], ramp_time: [t0, t1]}   the crank speed of engine-order loads

  Any number an element, a body mass or an inertia entry takes may be written {param: NAME}, which makes it the identifiable parameter
  NAME of the parameters section; so may a coordinate of the points of the element types that differentiate them
  (geometry.c; the others are refused by line and field). Points and axes are given in ground coordinates at the
  initial pose (point_a, point_b: in body coordinates instead).
*/
#include "models/elements/elementimpl.h"
#include <yaml.h>

#define MBS_MAX_KEYS 64

struct _MbsYAMLReader {
  yaml_document_t doc;
  MbsDescription  desc;
  char            entity[2 * MBS_NAME_LEN]; /* "element 'bushing1'", for messages */
  yaml_node_t    *mapping;                  /* the mapping whose keys are being read */
  PetscBool       used[MBS_MAX_KEYS];       /* its keys read so far */
  MbsElement     *element;                  /* the element being read, which records its points' parameters */
};

MbsDescription MbsYAMLReaderDescription(MbsYAMLReader *reader)
{
  return reader->desc;
}

/*
  MbsYAMLError - Raises an error that names the model file, the line of node, the entity being read, and the message.
*/
PetscErrorCode MbsYAMLError(MbsYAMLReader *reader, void *node_, const char format[], ...)
{
  yaml_node_t *node = (yaml_node_t *)node_;
  char         message[1024];
  size_t       length;
  va_list      args;

  PetscFunctionBeginUser;
  va_start(args, format);
  PetscCall(PetscVSNPrintf(message, sizeof(message), format, &length, args));
  va_end(args);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Model file '%s', line %d, %s: %s", reader->desc->file, node ? (int)node->start_mark.line + 1 : 0, reader->entity[0] ? reader->entity : "top level", message);
}

static yaml_node_t *Node(MbsYAMLReader *reader, int index)
{
  return yaml_document_get_node(&reader->doc, index);
}

static const char *Scalar(yaml_node_t *node)
{
  return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

/* Starts reading the keys of a mapping; MbsYAMLEndMapping then refuses any key nobody read (a misspelt field) */
static PetscErrorCode BeginMapping(MbsYAMLReader *reader, yaml_node_t *node, const char entity[], const char name[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(reader->entity, sizeof(reader->entity), "%s%s%s%s", entity, name ? " '" : "", name ? name : "", name ? "'" : ""));
  if (!node || node->type != YAML_MAPPING_NODE) PetscCall(MbsYAMLError(reader, node, "must be a mapping of fields (key: value)"));
  PetscCheck(node->data.mapping.pairs.top - node->data.mapping.pairs.start <= MBS_MAX_KEYS, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %d: more than %d fields", reader->desc->file, (int)node->start_mark.line + 1, MBS_MAX_KEYS);
  reader->mapping = node;
  PetscCall(PetscArrayzero(reader->used, MBS_MAX_KEYS));
  PetscFunctionReturn(0);
}

static PetscErrorCode EndMapping(MbsYAMLReader *reader)
{
  yaml_node_t *node = reader->mapping;

  PetscFunctionBeginUser;
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
    if (reader->used[pair - node->data.mapping.pairs.start]) continue;
    PetscCall(MbsYAMLError(reader, Node(reader, pair->key), "unknown field '%s'", Scalar(Node(reader, pair->key)) ? Scalar(Node(reader, pair->key)) : "?"));
  }
  PetscFunctionReturn(0);
}

/* The value of key in the mapping node (NULL: absent); marks the key as read when node is the mapping being read */
static yaml_node_t *Find(MbsYAMLReader *reader, yaml_node_t *node, const char key[])
{
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
    const char *name = Scalar(Node(reader, pair->key));

    if (name && !strcmp(name, key)) {
      if (node == reader->mapping) reader->used[pair - node->data.mapping.pairs.start] = PETSC_TRUE;
      return Node(reader, pair->value);
    }
  }
  return NULL;
}

/* A required field is absent: name it, and list the fields that were given (a misspelt one among them) */
static PetscErrorCode MissingField(MbsYAMLReader *reader, yaml_node_t *node, const char key[])
{
  char given[512] = "";

  PetscFunctionBeginUser;
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
    const char *name = Scalar(Node(reader, pair->key));

    PetscCall(MbsStrlcat(given, " ", sizeof(given)));
    PetscCall(MbsStrlcat(given, name ? name : "?", sizeof(given)));
  }
  PetscCall(MbsYAMLError(reader, node, "the field '%s' is missing; the fields given are:%s", key, given));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadReal(MbsYAMLReader *reader, yaml_node_t *node, const char key[], PetscReal *value)
{
  const char *text = Scalar(node);
  char       *end  = NULL;

  PetscFunctionBeginUser;
  if (text) *value = strtod(text, &end);
  if (!text)
    PetscCall(MbsYAMLError(reader, node, "%s takes a plain number here, not a list or mapping (a {param: NAME} may stand for masses, inertia entries, gravity's components, stiffness, damping, free lengths and a distance's length, excitation values (a sweep's frequencies and sweep_time and a ramp too), a body's initial position, velocity, angular_velocity and orientation, a bushing's or maxwell's axes, a table law's deflections, every point of an element (point, point_a, point_b) but on a flexible body, and the components of every axis, normal and direction; not for until, time, speed, counts, indices, orders and powers)", key));
  if (end == text || *end || (!PetscIsNormalReal(*value) && *value != 0)) PetscCall(MbsYAMLError(reader, node, "%s must be a finite number, got '%s'", key, text));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadName(MbsYAMLReader *reader, yaml_node_t *node, const char what[], char name[])
{
  const char *text = Scalar(node);

  PetscFunctionBeginUser;
  if (!text || !text[0]) PetscCall(MbsYAMLError(reader, node, "%s must be a name", what));
  if (strlen(text) >= MBS_NAME_LEN) PetscCall(MbsYAMLError(reader, node, "%s '%s' is longer than %d characters", what, text, MBS_NAME_LEN - 1));
  PetscCall(PetscStrncpy(name, text, MBS_NAME_LEN));
  PetscFunctionReturn(0);
}

/* A unit without spaces, '*' and '.', so that "N s/m", "N*s/m" and "N.s/m" compare equal */
static void UnitCompact(const char unit[], char compact[], size_t size)
{
  size_t k = 0;

  for (; *unit && k + 1 < size; unit++)
    if (*unit != ' ' && *unit != '*' && *unit != '.') compact[k++] = *unit;
  compact[k] = 0;
}

/* A number, or {param: NAME} of a parameter declared in the unit the field takes */
static PetscErrorCode ReadValue(MbsYAMLReader *reader, yaml_node_t *node, const char key[], const char unit[], MbsValue *value)
{
  MbsDescription desc = reader->desc;
  yaml_node_t   *name;
  char           known[512] = "";

  PetscFunctionBeginUser;
  value->param = -1;
  if (!node || node->type != YAML_MAPPING_NODE) {
    PetscCall(ReadReal(reader, node, key, &value->value));
    PetscFunctionReturn(0);
  }
  name = Find(reader, node, "param");
  if (!Scalar(name) || node->data.mapping.pairs.top - node->data.mapping.pairs.start != 1) PetscCall(MbsYAMLError(reader, node, "%s must be a number or {param: NAME}", key));
  for (PetscInt i = 0; i < desc->nparam; i++) {
    if (!strcmp(desc->param_info[i].name, Scalar(name))) {
      char want[64], have[64];

      UnitCompact(unit, want, sizeof(want));
      UnitCompact(desc->param_info[i].unit, have, sizeof(have));
      if (strcmp(want, have)) PetscCall(MbsYAMLError(reader, name, "%s takes %s, but parameter '%s' is declared in %s", key, unit, Scalar(name), desc->param_info[i].unit));
      value->param = i;
      value->value = desc->param_info[i].value;
      PetscFunctionReturn(0);
    }
    PetscCall(MbsStrlcat(known, " ", sizeof(known)));
    PetscCall(MbsStrlcat(known, desc->param_info[i].name, sizeof(known)));
  }
  PetscCall(MbsYAMLError(reader, name, "%s refers to the unknown parameter '%s'; the parameters section declares:%s", key, Scalar(name), desc->nparam ? known : " none"));
  PetscFunctionReturn(0);
}

/* The nodes of key in node: a list of at most n (exactly n without count), or one that is no list; *m of them */
static PetscErrorCode ReadItems(MbsYAMLReader *reader, yaml_node_t *mapping, const char key[], PetscBool required, PetscInt n, PetscBool exact, yaml_node_t *items[], PetscInt *m)
{
  yaml_node_t *node = Find(reader, mapping, key);

  PetscFunctionBeginUser;
  *m = 0;
  if (!node) {
    if (required) PetscCall(MissingField(reader, mapping, key));
    PetscFunctionReturn(0);
  }
  if (node->type != YAML_SEQUENCE_NODE) {
    if (exact && n != 1) PetscCall(MbsYAMLError(reader, node, "%s needs a list of %" PetscInt_FMT " numbers", key, n));
    items[0] = node;
    *m       = 1;
    PetscFunctionReturn(0);
  }
  *m = node->data.sequence.items.top - node->data.sequence.items.start;
  if (exact ? *m != n : *m > n || *m < 1) PetscCall(MbsYAMLError(reader, node, "%s needs %s%" PetscInt_FMT " numbers, got %" PetscInt_FMT, key, exact ? "" : "1 to ", n, *m));
  for (PetscInt i = 0; i < *m; i++) items[i] = Node(reader, node->data.sequence.items.start[i]);
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadValues - Reads key of the mapping being read: one number or parameter (declared in unit), or a list of
  at most n. With count NULL exactly n are required. Absent and not required: nothing changes.
@*/
PetscErrorCode MbsYAMLReadValues(MbsYAMLReader *reader, void *node, const char key[], const char unit[], PetscBool required, PetscInt n, MbsValue values[], PetscInt *count)
{
  yaml_node_t *items[MBS_MAX_KEYS];
  PetscInt     m;

  PetscFunctionBeginUser;
  PetscCheck(n <= MBS_MAX_KEYS, PETSC_COMM_SELF, PETSC_ERR_SUP, "At most %d values per field", MBS_MAX_KEYS);
  PetscCall(ReadItems(reader, (yaml_node_t *)node, key, required, n, (PetscBool)!count, items, &m));
  for (PetscInt i = 0; i < m; i++) PetscCall(ReadValue(reader, items[i], key, unit, &values[i]));
  if (count) *count = m;
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadItems - The nodes of key of the mapping being read, as MbsYAMLReadValues reads its values: a list of at
  most n items (exactly n with count NULL), or one item that is no list. Absent and not required: *count = 0.
@*/
PetscErrorCode MbsYAMLReadItems(MbsYAMLReader *reader, void *node, const char key[], PetscBool required, PetscInt n, void *items[], PetscInt *count)
{
  yaml_node_t *nodes[MBS_MAX_KEYS];
  PetscInt     m;

  PetscFunctionBeginUser;
  PetscCheck(n <= MBS_MAX_KEYS, PETSC_COMM_SELF, PETSC_ERR_SUP, "At most %d values per field", MBS_MAX_KEYS);
  PetscCall(ReadItems(reader, (yaml_node_t *)node, key, required, n, (PetscBool)!count, nodes, &m));
  for (PetscInt i = 0; i < m; i++) items[i] = nodes[i];
  if (count) *count = m;
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadItemValue - Reads the node item (of MbsYAMLReadItems) as a number or {param: NAME} declared in unit.
@*/
PetscErrorCode MbsYAMLReadItemValue(MbsYAMLReader *reader, void *item, const char key[], const char unit[], MbsValue *value)
{
  PetscFunctionBeginUser;
  PetscCall(ReadValue(reader, (yaml_node_t *)item, key, unit, value));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadChoice - The node item as {WORD: ...}, a mapping of one key among the n words: *choice is its index;
  any other node (a number, {param: NAME}) gives -1. A mapping of another word or of several keys is refused.
@*/
PetscErrorCode MbsYAMLReadChoice(MbsYAMLReader *reader, void *item_, const char key[], PetscInt n, const char *const words[], PetscInt *choice)
{
  yaml_node_t *item = (yaml_node_t *)item_;
  const char  *word;
  char         known[256] = "";

  PetscFunctionBeginUser;
  *choice = -1;
  if (!item || item->type != YAML_MAPPING_NODE || item->data.mapping.pairs.top == item->data.mapping.pairs.start) PetscFunctionReturn(0); /* ReadValue refuses {} */
  word = Scalar(Node(reader, item->data.mapping.pairs.start->key));
  if (item->data.mapping.pairs.top - item->data.mapping.pairs.start == 1 && word && !strcmp(word, "param")) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < n; i++) {
    if (word && !strcmp(word, words[i])) *choice = i;
    PetscCall(MbsStrlcat(known, " ", sizeof(known)));
    PetscCall(MbsStrlcat(known, words[i], sizeof(known)));
  }
  if (*choice < 0 || item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1)
    PetscCall(MbsYAMLError(reader, item, "%s: '%s' is no law of %s (a value is a number, {param: NAME} or one {LAW: ...} of:%s)", key, word ? word : "?", key, known));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadMapping - The mapping that is the value of key in the mapping node, with no other keys than the n words.
@*/
PetscErrorCode MbsYAMLReadMapping(MbsYAMLReader *reader, void *node_, const char key[], PetscInt n, const char *const words[], void **mapping)
{
  yaml_node_t *node = Find(reader, (yaml_node_t *)node_, key);

  PetscFunctionBeginUser;
  if (!node || node->type != YAML_MAPPING_NODE) PetscCall(MbsYAMLError(reader, node ? node : (yaml_node_t *)node_, "%s must be a mapping of fields (key: value)", key));
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
    const char *word  = Scalar(Node(reader, pair->key));
    PetscBool   known = PETSC_FALSE;

    for (PetscInt i = 0; i < n && word; i++) known = (PetscBool)(known || !strcmp(word, words[i]));
    if (!known) PetscCall(MbsYAMLError(reader, Node(reader, pair->key), "unknown field '%s' of %s", word ? word : "?", key));
  }
  *mapping = node;
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadWords - Reads key: a word or a list of at most *n words into words (pointers into the document, valid
  while it is read); *n becomes their number, 0 when key is absent.
@*/
PetscErrorCode MbsYAMLReadWords(MbsYAMLReader *reader, void *node_, const char key[], PetscInt *n, const char *words[])
{
  yaml_node_t *node = Find(reader, (yaml_node_t *)node_, key);
  PetscInt     m;

  PetscFunctionBeginUser;
  if (!node) {
    *n = 0;
    PetscFunctionReturn(0);
  }
  m = node->type == YAML_SEQUENCE_NODE ? node->data.sequence.items.top - node->data.sequence.items.start : 1;
  if (m < 1 || m > *n) PetscCall(MbsYAMLError(reader, node, "%s needs 1 to %" PetscInt_FMT " words, got %" PetscInt_FMT, key, *n, m));
  for (PetscInt i = 0; i < m; i++) {
    words[i] = Scalar(node->type == YAML_SEQUENCE_NODE ? Node(reader, node->data.sequence.items.start[i]) : node);
    if (!words[i]) PetscCall(MbsYAMLError(reader, node, "%s needs words, got a list or mapping", key));
  }
  *n = m;
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadVector - Reads key: a list of exactly n plain numbers (axes, poses and other geometry that is not identifiable).
@*/
PetscErrorCode MbsYAMLReadVector(MbsYAMLReader *reader, void *node_, const char key[], PetscBool required, PetscInt n, PetscReal x[], PetscBool *set)
{
  yaml_node_t *node = Find(reader, (yaml_node_t *)node_, key);

  PetscFunctionBeginUser;
  if (set) *set = (PetscBool)(node != NULL);
  if (!node) {
    if (required) PetscCall(MissingField(reader, (yaml_node_t *)node_, key));
    PetscFunctionReturn(0);
  }
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != n) PetscCall(MbsYAMLError(reader, node, "%s needs a list of %" PetscInt_FMT " numbers", key, n));
  for (PetscInt i = 0; i < n; i++) PetscCall(ReadReal(reader, Node(reader, node->data.sequence.items.start[i]), key, &x[i]));
  PetscFunctionReturn(0);
}

/* Records that coordinate c of point k (body el->body[k]) of el is parameter param (geometry.c): of a ground point
   (world true: point, ground coordinates at the initial pose) or of body coordinates; field and line name it */
static PetscErrorCode GeometryAdd(MbsDescription desc, MbsElement *el, PetscInt k, PetscInt c, PetscInt param, const char field[], PetscInt line, PetscBool world)
{
  MbsGeometry *g;
  PetscReal    e[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  PetscCheck(el->ngeometry < MBS_MAX_GEOMETRY, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s': at most %d point coordinates may be parameters", desc->file, line, el->name, MBS_MAX_GEOMETRY);
  g        = &el->geometry[el->ngeometry++];
  g->param = param;
  g->point = k;
  g->line  = line;
  g->p0    = desc->param_info[param].value;
  PetscCall(PetscStrncpy(g->field, field, sizeof(g->field)));
  e[c] = 1;
  if (world) MbsDescriptionLocalDirection(desc, el->body[k], e, g->dx);
  else PetscCall(PetscArraycpy(g->dx, e, 3));
  PetscFunctionReturn(0);
}

/*
  key: [x1, x2, x3] of the element being read, each a number or {param: NAME} in m (GeometryAdd): the body
  coordinates of its point k, or with world a point in ground coordinates at the initial pose, then a coordinate of
  point k or (k = 2) of both
*/
static PetscErrorCode ReadPoint(MbsYAMLReader *reader, yaml_node_t *mapping, const char key[], PetscInt k, PetscBool world, PetscReal x[3], PetscBool *set)
{
  yaml_node_t *node = Find(reader, mapping, key);

  PetscFunctionBeginUser;
  *set = (PetscBool)(node != NULL);
  if (!node) PetscFunctionReturn(0);
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 3) PetscCall(MbsYAMLError(reader, node, "%s needs a list of 3 numbers", key));
  for (PetscInt c = 0; c < 3; c++) {
    yaml_node_t *item = Node(reader, node->data.sequence.items.start[c]);
    MbsValue     value;

    if (Scalar(item)) {
      PetscCall(ReadReal(reader, item, key, &x[c]));
      continue;
    }
    PetscCall(ReadValue(reader, item, key, "m", &value));
    x[c] = value.value;
    for (PetscInt b = k == 2 ? 0 : k; b <= (k == 2 ? 1 : k); b++) PetscCall(GeometryAdd(reader->desc, reader->element, b, c, value.param, key, (PetscInt)item->start_mark.line + 1, world));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLHasField - Whether the mapping being read has key (which counts as read).
@*/
PetscBool MbsYAMLHasField(MbsYAMLReader *reader, void *node, const char key[])
{
  return (PetscBool)(Find(reader, (yaml_node_t *)node, key) != NULL);
}

/*@C
  MbsYAMLReadNumber - Reads key: one plain number (not a parameter); absent: set is false and value unchanged.
@*/
PetscErrorCode MbsYAMLReadNumber(MbsYAMLReader *reader, void *node_, const char key[], PetscReal *value, PetscBool *set)
{
  yaml_node_t *node = Find(reader, (yaml_node_t *)node_, key);

  PetscFunctionBeginUser;
  *set = (PetscBool)(node != NULL);
  if (node) PetscCall(ReadReal(reader, node, key, value));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsYAMLReadUnitVector(MbsYAMLReader *reader, void *node, const char key[], PetscReal d[3])
{
  PetscReal length;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadVector(reader, node, key, PETSC_TRUE, 3, d, NULL));
  length = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (length == 0) PetscCall(MbsYAMLError(reader, node, "%s must not be the zero vector", key));
  for (PetscInt k = 0; k < 3; k++) d[k] /= length;
  PetscFunctionReturn(0);
}

static PetscErrorCode FindBody(MbsYAMLReader *reader, yaml_node_t *node, const char what[], PetscInt *index)
{
  MbsDescription desc       = reader->desc;
  const char    *name       = Scalar(node);
  char           known[512] = " ground";

  PetscFunctionBeginUser;
  if (!name) PetscCall(MbsYAMLError(reader, node, "%s must name a body", what));
  if (!strcmp(name, "ground")) {
    *index = MBS_GROUND;
    PetscFunctionReturn(0);
  }
  for (PetscInt b = 0; b < desc->nbody; b++) {
    if (!strcmp(desc->body[b].name, name)) {
      *index = b;
      PetscFunctionReturn(0);
    }
    PetscCall(MbsStrlcat(known, " ", sizeof(known)));
    PetscCall(MbsStrlcat(known, desc->body[b].name, sizeof(known)));
  }
  PetscCall(MbsYAMLError(reader, node, "%s refers to the unknown body '%s'; bodies:%s", what, name, known));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadBody - Reads key: the name of a body or "ground". Absent and not required: the ground.
@*/
PetscErrorCode MbsYAMLReadBody(MbsYAMLReader *reader, void *node_, const char key[], PetscBool required, PetscInt *index)
{
  yaml_node_t *node = Find(reader, (yaml_node_t *)node_, key);

  PetscFunctionBeginUser;
  *index = MBS_GROUND;
  if (!node && required) PetscCall(MissingField(reader, (yaml_node_t *)node_, key));
  if (node) PetscCall(FindBody(reader, node, key, index));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadEarlierElement - type: NAME, the name of an element of that type declared before the sensor el (whose
  load or reaction it reads), into *other.
@*/
PetscErrorCode MbsYAMLReadEarlierElement(MbsYAMLReader *reader, void *node, const char type[], const MbsElement *el, const MbsElement **other)
{
  const char *name[1];
  PetscInt    nname      = 1;
  char        known[512] = "";

  PetscFunctionBeginUser;
  *other = NULL;
  PetscCall(MbsYAMLReadWords(reader, node, type, &nname, name));
  if (!nname) PetscCall(MbsYAMLError(reader, node, "the field '%s' is missing: the name of the %s element whose load it reads", type, type));
  for (const MbsElement *e = reader->desc->element; e < el; e++) {
    if (!strcmp(e->type, type)) {
      PetscCall(MbsStrlcat(known, " ", sizeof(known)));
      PetscCall(MbsStrlcat(known, e->name, sizeof(known)));
    }
    if (!strcmp(e->name, name[0])) *other = e;
  }
  if (!*other) PetscCall(MbsYAMLError(reader, node, "%s '%s' is no element declared before this sensor; %s elements before it:%s", type, name[0], type, known[0] ? known : " none"));
  if (strcmp((*other)->type, type)) PetscCall(MbsYAMLError(reader, node, "'%s' is a %s element, not a %s", name[0], (*other)->type, type));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadBodies - bodies: [a, b] of a joint or force element: two different bodies (ground for the ground).
@*/
PetscErrorCode MbsYAMLReadBodies(MbsYAMLReader *reader, void *node__, MbsElement *el)
{
  yaml_node_t *node_ = (yaml_node_t *)node__, *node = Find(reader, node_, "bodies");

  PetscFunctionBeginUser;
  if (!node || node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 2) PetscCall(MbsYAMLError(reader, node ? node : node_, "bodies must list the two bodies it joins, [a, b] (ground for the ground)"));
  for (PetscInt i = 0; i < 2; i++) PetscCall(FindBody(reader, Node(reader, node->data.sequence.items.start[i]), "bodies", &el->body[i]));
  if (el->body[0] == el->body[1]) PetscCall(MbsYAMLError(reader, node, "joins %s to itself; it must join two different bodies", el->body[0] == MBS_GROUND ? "the ground" : reader->desc->body[el->body[0]].name));
  PetscFunctionReturn(0);
}

/* Body coordinates of the world point x at the initial pose (a point mass: ground axes at its centre) */
void MbsDescriptionLocalPoint(MbsDescription desc, PetscInt body, const PetscReal x[3], PetscReal local[3])
{
  const MbsBody *b;
  PetscReal      d[3];

  if (body == MBS_GROUND) {
    for (PetscInt k = 0; k < 3; k++) local[k] = x[k];
    return;
  }
  b = &desc->body[body];
  for (PetscInt k = 0; k < 3; k++) d[k] = x[k] - b->r0[k];
  MbsDescriptionLocalDirection(desc, body, d, local);
}

void MbsDescriptionLocalDirection(MbsDescription desc, PetscInt body, const PetscReal d[3], PetscReal local[3])
{
  if (body == MBS_GROUND || !desc->body[body].rigid) {
    for (PetscInt k = 0; k < 3; k++) local[k] = d[k];
    return;
  }
  for (PetscInt s = 0; s < 3; s++) {
    const PetscReal *e = desc->body[body].R0 + 3 * s;

    local[s] = e[0] * d[0] + e[1] * d[1] + e[2] * d[2];
  }
}

/* An element's point (body coordinates) on a flexible body must be one of its nodes */
static PetscErrorCode CheckFlexiblePoint(MbsYAMLReader *reader, void *node, PetscInt b, const PetscReal local[3])
{
  MbsDescription     desc = reader->desc;
  const MbsBody     *body;
  const MbsFlexible *flexible;
  PetscInt           nearest  = 0;
  PetscReal          distance = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  if (b == MBS_GROUND || !desc->body[b].flexible) PetscFunctionReturn(0);
  body     = &desc->body[b];
  flexible = body->flexible;
  if (MbsFlexibleNode(body, local) >= 0) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < flexible->nnode; i++) {
    const PetscReal *xi = flexible->x + 3 * i;
    PetscReal        d  = PetscSqrtReal(PetscSqr(xi[0] - local[0]) + PetscSqr(xi[1] - local[1]) + PetscSqr(xi[2] - local[2]));

    if (d < distance) {
      distance = d;
      nearest  = i;
    }
  }
  PetscCall(MbsYAMLError(reader, node, "the point (%g, %g, %g) in the axes of flexible body '%s' is none of its nodes; the nearest, node %" PetscInt_FMT " at (%g, %g, %g), is %g m away (elements act on nodes: give its point, or node: %" PetscInt_FMT ")", (double)local[0], (double)local[1], (double)local[2],
                         body->name, nearest, (double)flexible->x[3 * nearest], (double)flexible->x[3 * nearest + 1], (double)flexible->x[3 * nearest + 2], (double)distance, nearest));
  PetscFunctionReturn(0);
}

/* node: i, instead of point, on a flexible body: its node i (counted from 0, the rows of /nodes/coordinates) at the initial pose */
static PetscErrorCode ReadNodePoint(MbsYAMLReader *reader, yaml_node_t *node, PetscInt b, PetscReal world[3], PetscBool *set)
{
  const MbsBody *body = b == MBS_GROUND ? NULL : &reader->desc->body[b];
  PetscReal      index;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadNumber(reader, node, "node", &index, set));
  if (!*set) PetscFunctionReturn(0);
  if (Find(reader, node, "point")) PetscCall(MbsYAMLError(reader, node, "give point or node, not both"));
  if (!body || !body->flexible) PetscCall(MbsYAMLError(reader, node, "node: %g, but the element joins no flexible body (node numbers the nodes of a flexible body's file)", (double)index));
  if (!(index >= 0 && index < body->flexible->nnode && index == PetscFloorReal(index))) PetscCall(MbsYAMLError(reader, node, "node: %g; flexible body '%s' has nodes 0 to %" PetscInt_FMT, (double)index, body->name, body->flexible->nnode - 1));
  for (PetscInt k = 0; k < 3; k++) {
    world[k] = body->r0[k];
    for (PetscInt s = 0; s < 3; s++) world[k] += body->R0[3 * s + k] * body->flexible->x[3 * (PetscInt)index + s];
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadJointPoints - bodies: [a, b], and the point where the element acts on each: point (ground coordinates
  at the initial pose, the same point on both) or point_a and point_b (body coordinates of each).
@*/
PetscErrorCode MbsYAMLReadJointPoints(MbsYAMLReader *reader, void *node, MbsElement *el, PetscReal local[2][3])
{
  PetscReal world[3];
  PetscBool set, set_a, set_b;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBodies(reader, node, el));
  PetscCall(ReadNodePoint(reader, node, el->body[el->body[1] != MBS_GROUND && reader->desc->body[el->body[1]].flexible ? 1 : 0], world, &set));
  if (!set) PetscCall(ReadPoint(reader, (yaml_node_t *)node, "point", 2, PETSC_TRUE, world, &set));
  PetscCall(ReadPoint(reader, (yaml_node_t *)node, "point_a", 0, PETSC_FALSE, local[0], &set_a));
  PetscCall(ReadPoint(reader, (yaml_node_t *)node, "point_b", 1, PETSC_FALSE, local[1], &set_b));
  if (set == (set_a || set_b) || set_a != set_b) PetscCall(MbsYAMLError(reader, node, "give either point (ground coordinates at the initial pose) or both point_a and point_b (body coordinates)"));
  if (set)
    for (PetscInt i = 0; i < 2; i++) MbsDescriptionLocalPoint(reader->desc, el->body[i], world, local[i]);
  for (PetscInt i = 0; i < 2; i++) PetscCall(CheckFlexiblePoint(reader, node, el->body[i], local[i]));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadJointAxis - The joint's bodies and points (MbsYAMLReadJointPoints) and its unit axis (ground coordinates at
  the initial pose).
@*/
PetscErrorCode MbsYAMLReadJointAxis(MbsYAMLReader *reader, void *node, MbsElement *el, PetscReal local[2][3], PetscReal axis[3])
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, local));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, axis));
  el->normals = PETSC_TRUE; /* every joint with an axis fixes the motions across it along the normals */
  PetscFunctionReturn(0);
}

/* key: an axis in ground coordinates at the initial pose into value (its components, which may be parameters), at (their
   values) and axis (the unit vector); naxis counts its parameters */
static PetscErrorCode ReadAxisValues(MbsYAMLReader *reader, void *node, const char key[], MbsValue value[3], PetscReal at[3], PetscInt *naxis, PetscReal axis[3])
{
  PetscReal length = 0, fixed = 0;
  PetscInt  nparam = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadValues(reader, node, key, "1", PETSC_TRUE, 3, value, NULL));
  for (PetscInt c = 0; c < 3; c++) {
    at[c] = value[c].value;
    length += PetscSqr(value[c].value);
    if (value[c].param >= 0) nparam++;
    else fixed += PetscSqr(value[c].value);
  }
  if (length == 0) PetscCall(MbsYAMLError(reader, node, "%s must not be the zero vector", key));
  if (nparam && fixed == 0) PetscCall(MbsYAMLError(reader, node, "%s: the components that are no parameters are all zero, so the parameters' zero would leave no axis; give a non-zero component as a number", key));
  for (PetscInt c = 0; c < 3; c++) axis[c] = value[c].value / PetscSqrtReal(length);
  *naxis += nparam;
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadAxis - key: a joint's axis or normal in ground coordinates at the initial pose, the unit vector axis; its
  components (dimensionless, unit "1") may be parameters, the rows then follow a/|a| (geometry.c). The bodies must be
  read.
@*/
PetscErrorCode MbsYAMLReadAxis(MbsYAMLReader *reader, void *node, const char key[], MbsElement *el, PetscReal axis[3])
{
  PetscReal za[3];

  PetscFunctionBeginUser;
  PetscCall(ReadAxisValues(reader, node, key, el->axis, el->axis_at, &el->naxis, axis));
  MbsDescriptionLocalDirection(reader->desc, el->body[0], axis, za);
  el->axis_k = MbsPerpendicularBranch(za);
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadCrossAxes - A universal joint's axis_a, fixed in body a, and axis_b, fixed in body b (ground coordinates at
  the initial pose, unit vectors into axis[0], axis[1]); their components may be parameters (el->cross, geometry.c).
  The bodies must be read.
@*/
PetscErrorCode MbsYAMLReadCrossAxes(MbsYAMLReader *reader, void *node, MbsElement *el, PetscReal axis[2][3])
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadAxis(reader, node, "axis_a", el, axis[0]));
  PetscCall(ReadAxisValues(reader, node, "axis_b", el->axis_b, el->axis_b_at, &el->naxis, axis[1]));
  el->cross = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadWorldPoint - point (ground coordinates at the initial pose) as body coordinates of body; absent: the
  body's centre of mass.
@*/
PetscErrorCode MbsYAMLReadWorldPoint(MbsYAMLReader *reader, void *node, PetscInt body, PetscReal local[3])
{
  PetscReal world[3];
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(ReadNodePoint(reader, node, body, world, &set));
  if (!set) PetscCall(ReadPoint(reader, (yaml_node_t *)node, "point", 0, PETSC_TRUE, world, &set));
  for (PetscInt k = 0; k < 3; k++) local[k] = 0;
  if (set) MbsDescriptionLocalPoint(reader->desc, body, world, local);
  PetscCall(CheckFlexiblePoint(reader, node, body, local));
  PetscFunctionReturn(0);
}

/* The number of entries of a section NAME: {fields} (0 when absent) */
static PetscErrorCode SectionSize(MbsYAMLReader *reader, yaml_node_t *node, const char hint[], PetscInt *count)
{
  PetscFunctionBeginUser;
  *count = 0;
  if (!node) PetscFunctionReturn(0);
  if (node->type != YAML_MAPPING_NODE) PetscCall(MbsYAMLError(reader, node, "%s", hint));
  *count = node->data.mapping.pairs.top - node->data.mapping.pairs.start;
  PetscFunctionReturn(0);
}

/* Entry i of a section: its name (unique in the section) and its mapping of fields, now being read */
static PetscErrorCode SectionEntry(MbsYAMLReader *reader, yaml_node_t *node, PetscInt i, const char entity[], char name[], yaml_node_t **field)
{
  yaml_node_pair_t *pairs = node->data.mapping.pairs.start;

  PetscFunctionBeginUser;
  *field = Node(reader, pairs[i].value);
  PetscCall(ReadName(reader, Node(reader, pairs[i].key), entity, name));
  PetscCall(BeginMapping(reader, *field, entity, name));
  for (PetscInt j = 0; j < i; j++)
    if (!strcmp(Scalar(Node(reader, pairs[j].key)), name)) PetscCall(MbsYAMLError(reader, *field, "declared twice"));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadParameters(MbsYAMLReader *reader, yaml_node_t *node)
{
  MbsDescription desc = reader->desc;

  PetscFunctionBeginUser;
  PetscCall(SectionSize(reader, node, "parameters must be a mapping NAME: {value, unit, lower, upper}", &desc->nparam));
  PetscCall(PetscCalloc1(desc->nparam, &desc->param_info));
  for (PetscInt i = 0; i < desc->nparam; i++) {
    yaml_node_t      *field, *unit, *description;
    MbsParameterInfo *info = &desc->param_info[i];
    char              name[MBS_NAME_LEN];

    PetscCall(SectionEntry(reader, node, i, "parameter", name, &field));
    PetscCall(PetscStrallocpy(name, (char **)&info->name));
    PetscCall(ReadReal(reader, Find(reader, field, "value"), "value", &info->value));
    unit = Find(reader, field, "unit");
    if (!Scalar(unit)) PetscCall(MbsYAMLError(reader, field, "needs its SI unit (unit: N/m, kg, ...)"));
    PetscCall(PetscStrallocpy(Scalar(unit), (char **)&info->unit));
    description = Find(reader, field, "description");
    PetscCall(PetscStrallocpy(Scalar(description) ? Scalar(description) : name, (char **)&info->description));
    info->lower = 0;
    info->upper = PETSC_MAX_REAL;
    if (Find(reader, field, "lower")) PetscCall(ReadReal(reader, Find(reader, field, "lower"), "lower", &info->lower));
    if (Find(reader, field, "upper")) PetscCall(ReadReal(reader, Find(reader, field, "upper"), "upper", &info->upper));
    if (!(info->lower <= info->value && info->value <= info->upper)) PetscCall(MbsYAMLError(reader, field, "value %g lies outside its bounds [%g, %g]", (double)info->value, (double)info->lower, (double)info->upper));
    info->identifiable = PETSC_TRUE;
    PetscCall(EndMapping(reader));
  }
  PetscFunctionReturn(0);
}

/* key: [[x1, x2, x3], [y1, y2, y3], [z1, z2, z3]], three right-handed orthonormal axes (to 1e-10) in ground
   coordinates, into R column by column; with values each entry may be {param: NAME} (unit 1), values then holds them
   and R their file values; absent: the identity */
static PetscErrorCode ReadRotation(MbsYAMLReader *reader, yaml_node_t *mapping, const char key[], const char what[], MbsValue values[], PetscReal R[9], PetscBool *set)
{
  yaml_node_t *node = Find(reader, mapping, key);
  PetscReal    det;
  PetscBool    named = PETSC_FALSE; /* an entry holds a parameter: the check is of the file's values */

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 9; k++) R[k] = (k % 4 == 0);
  for (PetscInt k = 0; k < 9 && values; k++) values[k] = (MbsValue){R[k], -1};
  if (set) *set = (PetscBool)(node != NULL);
  if (!node) PetscFunctionReturn(0);
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 3)
    PetscCall(MbsYAMLError(reader, node, "%s needs the three %s in ground coordinates, [[x1, x2, x3], [y1, y2, y3], [z1, z2, z3]]", key, what));
  for (PetscInt s = 0; s < 3; s++) {
    yaml_node_t *axis = Node(reader, node->data.sequence.items.start[s]);

    if (axis->type != YAML_SEQUENCE_NODE || axis->data.sequence.items.top - axis->data.sequence.items.start != 3) PetscCall(MbsYAMLError(reader, axis, "each axis of %s needs 3 numbers", key));
    for (PetscInt k = 0; k < 3; k++) {
      yaml_node_t *item = Node(reader, axis->data.sequence.items.start[k]);

      if (values) {
        PetscCall(ReadValue(reader, item, key, "1", &values[3 * s + k]));
        R[3 * s + k] = values[3 * s + k].value;
        named        = (PetscBool)(named || values[3 * s + k].param >= 0);
      } else PetscCall(ReadReal(reader, item, key, &R[3 * s + k]));
    }
  }
  for (PetscInt s = 0; s < 3; s++)
    for (PetscInt t = 0; t < 3; t++) {
      const PetscReal *a = R + 3 * s, *b = R + 3 * t;

      if (PetscAbsReal(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] - (s == t)) > 1e-10)
        PetscCall(MbsYAMLError(reader, node, "%s is not a rotation%s: axes %" PetscInt_FMT " and %" PetscInt_FMT " have the product %.6g instead of %d (give unit, orthogonal axes to 1e-10)", key, named ? " at its parameters' file values" : "", s + 1, t + 1, (double)(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]), s == t));
    }
  det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
  if (det < 0) PetscCall(MbsYAMLError(reader, node, "%s is a reflection (x x y = -z); the axes must be right-handed", key));
  PetscFunctionReturn(0);
}

/*@C
  MbsYAMLReadRotationValues - MbsYAMLReadRotation() whose nine entries may be parameters (dimensionless, unit "1"), into
  values (absent: the identity's); R holds them at the file's values, where they must be a rotation.
@*/
PetscErrorCode MbsYAMLReadRotationValues(MbsYAMLReader *reader, void *node, const char key[], const char what[], MbsValue values[9], PetscReal R[9], PetscBool *set)
{
  PetscFunctionBeginUser;
  PetscCall(ReadRotation(reader, (yaml_node_t *)node, key, what, values, R, set));
  PetscFunctionReturn(0);
}

/*
  The initial state of a body: position [m], velocity [m/s], angular_velocity [rad/s] and orientation, each entry a
  number or a parameter (doc/model-files.md, "The initial state as parameters"); r0, v0, omega0, R0 their file values
*/
static PetscErrorCode ReadStart(MbsYAMLReader *reader, yaml_node_t *field, MbsBody *body)
{
  const char *const key[3]  = {"position", "velocity", "angular_velocity"};
  const char *const unit[3] = {"m", "m/s", "rad/s"};
  PetscReal        *file[3] = {body->r0, body->v0, body->omega0};

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < 3; f++) {
    for (PetscInt k = 0; k < 3; k++) body->start[3 * f + k] = (MbsValue){0, -1};
    PetscCall(MbsYAMLReadValues(reader, field, key[f], unit[f], PETSC_FALSE, 3, body->start + 3 * f, NULL));
    for (PetscInt k = 0; k < 3; k++) file[f][k] = body->start[3 * f + k].value;
  }
  PetscCall(ReadRotation(reader, field, "orientation", "body axes u, v, w", body->start + 9, body->R0, NULL));
  for (PetscInt i = 0; i < 18; i++) body->start_p = (PetscBool)(body->start_p || body->start[i].param >= 0);
  if (body->start_p) { /* the axes at every p are the polar factor: at the file's values too, not the numbers within 1e-10 of it */
    PetscReal R[9], S[9];

    PetscCheck(MbsPolarRotation(body->R0, R, S), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The orientation of body '%s' passed as a rotation but has no polar factor", body->name);
    for (PetscInt k = 0; k < 9; k++) body->R0[k] = R[k];
  }
  PetscFunctionReturn(0);
}

/* Whether Jbar (row-major 3 x 3, symmetric) is positive definite with its smallest eigenvalue above 1e-12 of its trace:
   the leading minors of Jbar - 1e-12 tr(Jbar) 1. Exactly flat moments such as [0.1, 0.2, 0.3] leave a rounding-sized
   eigenvalue (5.5e-17) that a test without the margin passed, and the mass matrix was singular to working precision. */
static PetscBool PositiveDefinite(const PetscReal Jbar[9])
{
  PetscReal margin = 1e-12 * (Jbar[0] + Jbar[4] + Jbar[8]), J[9], minor2, det;

  for (PetscInt i = 0; i < 9; i++) J[i] = Jbar[i] - (i % 4 == 0 ? margin : 0);
  minor2 = J[0] * J[4] - J[1] * J[3];
  det    = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);

  return (PetscBool)(margin > 0 && J[0] > 0 && minor2 > 0 && det > 0);
}

/*
  A flexible body's fields: flexible (its file, relative to the model file's folder), modes (how many of the file's it
  keeps), modal_damping (zeta, a number or {param: NAME}, default 0); mass and inertia come from the file
*/
static PetscErrorCode ReadFlexible(MbsYAMLReader *reader, yaml_node_t *field, MbsBody *body)
{
  MbsDescription desc = reader->desc;
  MbsFlexible   *flexible;
  PetscReal      modes = 0;
  PetscBool      set;
  char           path[PETSC_MAX_PATH_LEN] = "", where[PETSC_MAX_PATH_LEN + 128];
  const char    *slash = strrchr(desc->file, '/'), *file = Scalar(Find(reader, field, "flexible"));

  PetscFunctionBeginUser;
  if (!file) PetscCall(MbsYAMLError(reader, field, "flexible: the file of the body's reduced finite-element model (HDF5, mbsid beam writes one)"));
  if (Find(reader, field, "mass") || Find(reader, field, "inertia")) PetscCall(MbsYAMLError(reader, field, "a flexible body's mass and inertia are those of its file; remove mass and inertia"));
  PetscCall(PetscNew(&flexible));
  body->flexible          = flexible;
  body->rigid             = PETSC_TRUE;
  flexible->damping.param = -1;
  PetscCall(MbsYAMLReadNumber(reader, field, "modes", &modes, &set));
  if (!set || !(modes >= 1 && modes <= 1000 && modes == PetscFloorReal(modes))) PetscCall(MbsYAMLError(reader, field, "modes: the number of the file's modes the body keeps, a whole number from 1 (got %s%g)", set ? "" : "none, ", (double)modes));
  flexible->nmode = (PetscInt)modes;
  PetscCall(MbsYAMLReadValues(reader, field, "modal_damping", "1", PETSC_FALSE, 1, &flexible->damping, NULL));
  if (flexible->damping.value < 0 || (flexible->damping.param >= 0 && desc->param_info[flexible->damping.param].lower < 0))
    PetscCall(MbsYAMLError(reader, field, "modal_damping must not be negative%s", flexible->damping.param >= 0 ? " (nor the lower bound of its parameter)" : ""));
  if (file[0] != '/' && slash) PetscCall(PetscSNPrintf(path, sizeof(path), "%.*s/", (int)(slash - desc->file), desc->file));
  PetscCall(MbsStrlcat(path, file, sizeof(path)));
  PetscCall(PetscSNPrintf(where, sizeof(where), "Model file '%s', line %d, body '%s'", desc->file, (int)field->start_mark.line + 1, body->name));
  PetscCall(MbsFlexibleReadFile(where, path, flexible));
  body->mass.value = flexible->slot_mass[0];
  body->mass.param = -1;
  for (PetscInt m = 0; m < 6; m++) body->moment[m] = (MbsValue){0, -1}; /* the file's inertia: no entry is a parameter */
  PetscFunctionReturn(0);
}

/*
  inertia: [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Iyz, Ixz], the tensor's entries about the centre of mass in body
  axes (Ixy = -int x y dm), numbers or parameters. Jbar = tr(I)/2 1 - I = int x x^T dm must be positive definite (the
  triangle inequalities of the principal moments, strictly, by 1e-12 of the trace), or the mass matrix is singular: at
  the file's values, and with parameters on the whole box of their bounds. Jbar is affine in the entries and the
  matrices whose smallest eigenvalue exceeds 1e-12 of their trace are a convex cone, so the box's corners (at most 2^6)
  decide it exactly.
*/
static PetscErrorCode ReadInertia(MbsYAMLReader *reader, yaml_node_t *field, MbsBody *body)
{
  MbsDescription desc = reader->desc;
  yaml_node_t   *node = Find(reader, field, "inertia");
  PetscInt       count, nfree = 0, free[6];
  PetscReal      J[9];

  PetscFunctionBeginUser;
  for (PetscInt m = 0; m < 6; m++) body->moment[m] = (MbsValue){0, -1};
  PetscCall(MbsYAMLReadValues(reader, field, "inertia", "kg m^2", PETSC_FALSE, 6, body->moment, &count));
  body->rigid = (PetscBool)(count > 0);
  if (!count) PetscFunctionReturn(0);
  if (count != 3 && count != 6) PetscCall(MbsYAMLError(reader, node, "inertia needs [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Iyz, Ixz] [kg m^2]"));
  MbsBodyJbar(body, NULL, -1, J);
  if (!PositiveDefinite(J))
    PetscCall(MbsYAMLError(reader, node, "the inertia tensor is not that of a body: int x x^T dm = tr(I)/2 - I must be positive definite (each principal moment less than the sum of the other two, by more than 1e-12 of the sum of all three)"));
  for (PetscInt m = 0; m < 6; m++) { /* the distinct parameters among the entries */
    PetscBool seen = PETSC_FALSE;

    for (PetscInt k = 0; k < nfree; k++) seen = (PetscBool)(seen || body->moment[free[k]].param == body->moment[m].param);
    if (body->moment[m].param >= 0 && !seen) free[nfree++] = m;
  }
  for (PetscInt corner = 0; corner < (1 << nfree); corner++) {
    PetscReal p[6], Jc[9], dJ[9];
    char      at[256] = "";

    PetscCall(PetscArraycpy(Jc, J, 9));
    for (PetscInt k = 0; k < nfree; k++) {
      const MbsParameterInfo *info = &desc->param_info[body->moment[free[k]].param];
      char                    one[96];

      p[k] = (corner >> k) & 1 ? info->upper : info->lower;
      for (PetscInt m = 0; m < 6; m++) { /* every entry that is this parameter moves from the value to the bound */
        if (body->moment[m].param != body->moment[free[k]].param) continue;
        MbsBodyJbar(body, NULL, m, dJ);
        for (PetscInt i = 0; i < 9; i++) Jc[i] += (p[k] - info->value) * dJ[i];
      }
      PetscCall(PetscSNPrintf(one, sizeof(one), " %s = %g", info->name, (double)p[k]));
      PetscCall(MbsStrlcat(at, one, sizeof(at)));
    }
    if (!PositiveDefinite(Jc)) PetscCall(MbsYAMLError(reader, node, "the inertia tensor is no body's at a corner of its parameters' bounds (%s): narrow lower and upper so that each principal moment stays less than the sum of the other two", at + 1));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadBodies(MbsYAMLReader *reader, yaml_node_t *node)
{
  MbsDescription desc = reader->desc;

  PetscFunctionBeginUser;
  PetscCall(SectionSize(reader, node, "bodies must be a mapping NAME: {mass, ...}", &desc->nbody));
  if (!desc->nbody) PetscCall(MbsYAMLError(reader, node, "the model needs at least one body (bodies: NAME: {mass, ...})"));
  PetscCall(PetscCalloc1(desc->nbody, &desc->body));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    yaml_node_t *field;
    MbsBody     *body = &desc->body[b];
    MbsValue     mass;

    PetscCall(SectionEntry(reader, node, b, "body", body->name, &field));
    body->line = field->start_mark.line + 1;
    if (!strcmp(body->name, "ground")) PetscCall(MbsYAMLError(reader, field, "'ground' is the fixed frame and cannot be a body"));
    if (Find(reader, field, "flexible")) PetscCall(ReadFlexible(reader, field, body));
    else {
      PetscCall(MbsYAMLReadValues(reader, field, "mass", "kg", PETSC_TRUE, 1, &mass, NULL));
      if (!(mass.value > 0) || (mass.param >= 0 && !(desc->param_info[mass.param].lower > 0))) PetscCall(MbsYAMLError(reader, field, "mass must be positive%s", mass.param >= 0 ? " (and so the lower bound of its parameter)" : ""));
      body->mass = mass;
      PetscCall(ReadInertia(reader, field, body));
    }
    PetscCall(ReadStart(reader, field, body));
    if (!body->rigid && (Find(reader, field, "orientation") || Find(reader, field, "angular_velocity"))) PetscCall(MbsYAMLError(reader, field, "a point mass (no inertia) has no orientation or angular velocity"));
    PetscCall(EndMapping(reader));
  }
  PetscFunctionReturn(0);
}

/* Points with parameters (ReadPoint) only where the element's type differentiates them (MbsElementType.geometric), and
   not on a flexible body (whose elements act on nodes). A joint's point_a or point_b moves the point on one body alone:
   the model then starts from the consistent pose nearest the file's (model_described.c, ProjectPose) */
static PetscErrorCode CheckGeometry(MbsYAMLReader *reader, MbsElement *el)
{
  MbsDescription desc = reader->desc;

  PetscFunctionBeginUser;
  for (PetscInt n = 0; n < el->ngeometry; n++) {
    const MbsGeometry *g    = &el->geometry[n];
    PetscInt           body = el->body[g->point];

    PetscCheck(el->ops->geometric, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s': %s cannot hold the parameter '%s' in an element of type %s: only the points of bushing, maxwell, spring_damper, force, engine_force, prescribed, position, velocity, acceleration and relative_displacement elements and of the joints (distance and those with a point) may (the geometry of the other types is not identifiable yet)",
               desc->file, g->line, el->name, g->field, desc->param_info[g->param].name, el->type);
    PetscCheck(body == MBS_GROUND || !desc->body[body].flexible, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s': %s cannot hold the parameter '%s' on flexible body '%s', whose elements act on its nodes", desc->file, g->line, el->name, g->field,
               desc->param_info[g->param].name, desc->body[body].name);
  }
  PetscCall(PetscArraycpy(&el->point0[0][0], &el->vector[0][0], 6));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadElements(MbsYAMLReader *reader, yaml_node_t *node)
{
  MbsDescription desc = reader->desc;

  PetscFunctionBeginUser;
  PetscCall(SectionSize(reader, node, "elements must be a mapping NAME: {type: TYPE, ...}", &desc->nelement));
  PetscCall(PetscCalloc1(desc->nelement, &desc->element));
  for (PetscInt e = 0; e < desc->nelement; e++) {
    yaml_node_t *field;
    MbsElement  *el = &desc->element[e];
    char         known[512];

    PetscCall(SectionEntry(reader, node, e, "element", el->name, &field));
    el->line = field->start_mark.line + 1;
    PetscCall(ReadName(reader, Find(reader, field, "type"), "type", el->type));
    PetscCall(MbsElementTypeFind(el->type, &el->ops, known, sizeof(known)));
    if (!el->ops) PetscCall(MbsYAMLError(reader, Find(reader, field, "type"), "unknown element type '%s'; types: %s", el->type, known));
    el->body[0] = el->body[1] = MBS_GROUND;
    for (PetscInt k = 0; k < MBS_MAX_VALUE; k++) el->value[k].param = -1;
    for (PetscInt k = 0; k < 2; k++) el->ramp[k] = el->sweep.f[k] = el->sweep.t[k] = (MbsValue){0, -1};
    reader->element = el;
    PetscCall(el->ops->read(reader, field, el));
    PetscCall(CheckGeometry(reader, el));
    PetscCall(EndMapping(reader));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadTime(MbsYAMLReader *reader, yaml_node_t *node)
{
  MbsDescription desc  = reader->desc;
  const char    *key[] = {"t0", "tf", "dt", "dt_max"};
  PetscReal     *value[4];

  PetscFunctionBeginUser;
  value[0]     = &desc->t0;
  value[1]     = &desc->tf;
  value[2]     = &desc->dt;
  value[3]     = &desc->dt_max;
  desc->t0     = 0;
  desc->tf     = 1;
  desc->dt     = 1e-3;
  desc->dt_max = 0;
  if (!node) PetscFunctionReturn(0);
  PetscCall(BeginMapping(reader, node, "time", NULL));
  for (PetscInt i = 0; i < 4; i++)
    if (Find(reader, node, key[i])) PetscCall(ReadReal(reader, Find(reader, node, key[i]), key[i], value[i]));
  if (!(desc->tf > desc->t0 && desc->dt > 0 && desc->dt_max >= 0)) PetscCall(MbsYAMLError(reader, node, "needs t0 < tf, dt > 0 and dt_max >= 0 [s]"));
  PetscCall(EndMapping(reader));
  PetscFunctionReturn(0);
}

/*
  speed: {stationary_rpm: N} or {ramp_rpm: [n0, n1], ramp_time: [t0, t1]}, the engine speed the engine-order loads
  follow (engine_speed.c: constant, or linear from n0 at t0 to n1 at t1, held outside), which the options
  -stationary_rpm, -ramp_rpm, -ramp_time and -speed_profile override
*/
static PetscErrorCode ReadSpeed(MbsYAMLReader *reader, yaml_node_t *node)
{
  MbsSpeedProfile *speed = &reader->desc->speed;
  PetscBool        set_rpm, set_time;

  PetscFunctionBeginUser;
  reader->entity[0] = 0;
  if (!node) {
    if (reader->desc->engine_order) PetscCall(MbsYAMLError(reader, yaml_document_get_root_node(&reader->doc), "engine-order loads need the engine speed: speed: {stationary_rpm: N} or {ramp_rpm: [n0, n1], ramp_time: [t0, t1]}"));
    PetscFunctionReturn(0);
  }
  PetscCall(BeginMapping(reader, node, "speed", NULL));
  if (!reader->desc->engine_order) PetscCall(MbsYAMLError(reader, node, "speed is the crank speed of engine-order loads (engine_force, engine_torque), and the model has none"));
  if (Find(reader, node, "stationary_rpm")) PetscCall(ReadReal(reader, Find(reader, node, "stationary_rpm"), "stationary_rpm", &speed->stationary_rpm));
  PetscCall(MbsYAMLReadVector(reader, node, "ramp_rpm", PETSC_FALSE, 2, speed->ramp_rpm, &set_rpm));
  PetscCall(MbsYAMLReadVector(reader, node, "ramp_time", PETSC_FALSE, 2, speed->ramp_time, &set_time));
  if (speed->stationary_rpm > 0 ? set_rpm || set_time : !(set_rpm && set_time)) PetscCall(MbsYAMLError(reader, node, "give either stationary_rpm: N > 0 or both ramp_rpm: [n0, n1] and ramp_time: [t0, t1] [rpm, s]"));
  if (!(speed->stationary_rpm > 0) && !(speed->ramp_rpm[0] > 0 && speed->ramp_rpm[1] > 0 && speed->ramp_time[1] > speed->ramp_time[0])) PetscCall(MbsYAMLError(reader, node, "the run-up needs speeds ramp_rpm > 0 and times ramp_time t0 < t1"));
  PetscCall(EndMapping(reader));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadOutput(MbsYAMLReader *reader, yaml_node_t *node, yaml_node_t *root)
{
  MbsDescription desc = reader->desc;

  PetscFunctionBeginUser;
  reader->entity[0] = 0;
  desc->output      = -1;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (desc->element[e].ops->kind != MBS_ELEMENT_SENSOR) continue;
    if (node ? Scalar(node) && !strcmp(Scalar(node), desc->element[e].name) : desc->output < 0) desc->output = e;
  }
  if (desc->output < 0) PetscCall(MbsYAMLError(reader, node ? node : root, node ? "output '%s' is not a sensor element of the file" : "the model needs a sensor element (position, velocity) as its output", Scalar(node) ? Scalar(node) : "?"));
  PetscFunctionReturn(0);
}

/* planar: x, y or z (none: 3D, as without the field) */
static PetscErrorCode ReadPlanar(MbsYAMLReader *reader, yaml_node_t *node)
{
  const char *const axes[] = {"x", "y", "z", "none"};
  const char       *word   = Scalar(node);

  PetscFunctionBeginUser;
  reader->desc->planar = -1;
  if (!node) PetscFunctionReturn(0);
  reader->desc->planar_line = (PetscInt)node->start_mark.line + 1;
  for (PetscInt k = 0; k < 4 && word; k++)
    if (!strcmp(word, axes[k])) reader->desc->planar = k < 3 ? k : -1;
  if (!word || (reader->desc->planar < 0 && strcmp(word, "none"))) PetscCall(MbsYAMLError(reader, node, "planar: '%s' is no ground axis (x, y, z, or none)", word ? word : "?"));
  PetscFunctionReturn(0);
}

/* gravity: [gx, gy, gz] [m/s^2] (default none), each component a number or a parameter (read after the parameters) */
static PetscErrorCode ReadGravity(MbsYAMLReader *reader, yaml_node_t *root, yaml_node_t *gravity)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) reader->desc->gravity[k] = (MbsValue){0, -1};
  if (gravity) PetscCall(MbsYAMLReadValues(reader, root, "gravity", "m/s^2", PETSC_FALSE, 3, reader->desc->gravity, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadDocument(MbsYAMLReader *reader)
{
  yaml_node_t *root = yaml_document_get_root_node(&reader->doc);

  PetscFunctionBeginUser;
  PetscCall(BeginMapping(reader, root, "top level", NULL));
  reader->entity[0] = 0;
  {
    yaml_node_t *time = Find(reader, root, "time"), *parameters = Find(reader, root, "parameters"), *bodies = Find(reader, root, "bodies"), *elements = Find(reader, root, "elements"), *output = Find(reader, root, "output"), *speed = Find(reader, root, "speed"), *planar = Find(reader, root, "planar"), *gravity = Find(reader, root, "gravity");

    PetscCall(EndMapping(reader));
    PetscCall(ReadPlanar(reader, planar));
    PetscCall(ReadTime(reader, time));
    PetscCall(ReadParameters(reader, parameters));
    reader->entity[0] = 0;
    PetscCall(ReadGravity(reader, root, gravity));
    PetscCall(ReadBodies(reader, bodies));
    PetscCall(ReadElements(reader, elements));
    PetscCall(ReadSpeed(reader, speed));
    PetscCall(ReadOutput(reader, output, root));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadFile_Private(const char path[], MbsYAMLReader *reader)
{
  FILE         *file;
  yaml_parser_t parser;
  int           loaded;

  PetscFunctionBeginUser;
  file = fopen(path, "rb");
  PetscCheck(file, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read model file '%s' (-model_file): no such file or no permission", path);
  PetscCheck(yaml_parser_initialize(&parser), PETSC_COMM_SELF, PETSC_ERR_LIB, "libyaml could not start for model file '%s'", path);
  yaml_parser_set_input_file(&parser, file);
  loaded = yaml_parser_load(&parser, &reader->doc);
  if (!loaded) {
    char message[512];

    PetscCall(PetscSNPrintf(message, sizeof(message), "Model file '%s', line %d, column %d: %s%s%s", path, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1, parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
                            parser.context ? parser.context : ""));
    yaml_parser_delete(&parser);
    fclose(file);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s", message);
  }
  yaml_parser_delete(&parser);
  fclose(file);
  if (!yaml_document_get_root_node(&reader->doc)) {
    yaml_document_delete(&reader->doc);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Model file '%s' is empty", path);
  }
  MbsCallCleanup(ReadDocument(reader), (yaml_document_delete(&reader->doc), 0));
  PetscFunctionReturn(0);
}

/*@C
  MbsDescriptionRead - Reads a model file into a description; on an error nothing stays allocated. Not collective.
@*/
PetscErrorCode MbsDescriptionRead(const char path[], MbsDescription *desc)
{
  MbsYAMLReader reader;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&reader, sizeof(reader)));
  PetscCall(PetscNew(desc));
  PetscCall(PetscStrncpy((*desc)->file, path, sizeof((*desc)->file)));
  reader.desc = *desc;
  MbsCallUndo(ReadFile_Private(path, &reader), MbsDescriptionDestroy(desc));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDescriptionDestroy(MbsDescription *desc)
{
  PetscFunctionBeginUser;
  if (!*desc) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < (*desc)->nparam; i++) {
    PetscCall(PetscFree((*desc)->param_info[i].name));
    PetscCall(PetscFree((*desc)->param_info[i].unit));
    PetscCall(PetscFree((*desc)->param_info[i].description));
  }
  PetscCall(PetscFree((*desc)->param_info));
  for (PetscInt e = 0; e < (*desc)->nelement && (*desc)->element; e++) PetscCall(PetscFree2((*desc)->element[e].node_t, (*desc)->element[e].node_F));
  for (PetscInt b = 0; b < (*desc)->nbody && (*desc)->body; b++) PetscCall(MbsFlexibleDestroy(&(*desc)->body[b].flexible));
  PetscCall(PetscFree((*desc)->body));
  for (PetscInt e = 0; e < (*desc)->nelement && (*desc)->element; e++) PetscCall(PetscFree((*desc)->element[e].law));
  PetscCall(PetscFree((*desc)->element));
  PetscCall(PetscFree((*desc)->work));
  PetscCall(MbsSpeedProfileReset(&(*desc)->speed));
  PetscCall(PetscFree(*desc));
  PetscFunctionReturn(0);
}
