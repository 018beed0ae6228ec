/*
 * GLSL transitions on the CPU: Mesa's llvmpipe through EGL with no display (the surfaceless
 * platform), an OpenGL 3.3 core context for each program, the two pages as textures and the
 * frame drawn into a floating-point texture and read back (so that a shader's NaN is seen).
 * libEGL is opened with dlopen when a render first asks for it, and every EGL and GL function
 * is looked up through it (eglGetProcAddress): Segue links no GL library, and the few types
 * and enums used are declared here, as Khronos' headers define them.
 */
#define _GNU_SOURCE
#include "../core/internal.h"
#include "segue_glsl.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *EGLDisplay, *EGLConfig, *EGLContext, *EGLSurface;
typedef int32_t EGLint;
typedef unsigned int EGLBoolean, EGLenum;
typedef intptr_t EGLAttrib;
#define EGL_NONE 0x3038
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_OPENGL_BIT 0x0008
#define EGL_OPENGL_API 0x30A2
#define EGL_CONTEXT_MAJOR_VERSION 0x3098
#define EGL_CONTEXT_MINOR_VERSION 0x30FB
#define EGL_CONTEXT_OPENGL_PROFILE_MASK 0x30FD
#define EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT 0x0001
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD

typedef unsigned int GLenum, GLuint, GLbitfield;
typedef int GLint, GLsizei;
typedef float GLfloat;
typedef char GLchar;
typedef unsigned char GLboolean, GLubyte;
typedef ptrdiff_t GLsizeiptr;
#define GL_FRAGMENT_SHADER 0x8B30
#define GL_VERTEX_SHADER 0x8B31
#define GL_COMPILE_STATUS 0x8B81
#define GL_LINK_STATUS 0x8B82
#define GL_INFO_LOG_LENGTH 0x8B84
#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE0 0x84C0
#define GL_RGBA 0x1908
#define GL_RGBA8 0x8058
#define GL_RGBA32F 0x8814
#define GL_UNSIGNED_BYTE 0x1401
#define GL_FLOAT 0x1406
#define GL_TEXTURE_MAG_FILTER 0x2800
#define GL_TEXTURE_MIN_FILTER 0x2801
#define GL_TEXTURE_WRAP_S 0x2802
#define GL_TEXTURE_WRAP_T 0x2803
#define GL_LINEAR 0x2601
#define GL_NEAREST 0x2600
#define GL_CLAMP_TO_EDGE 0x812F
#define GL_FRAMEBUFFER 0x8D40
#define GL_COLOR_ATTACHMENT0 0x8CE0
#define GL_FRAMEBUFFER_COMPLETE 0x8CD5
#define GL_ARRAY_BUFFER 0x8892
#define GL_STATIC_DRAW 0x88E4
#define GL_TRIANGLE_STRIP 0x0005
#define GL_PACK_ALIGNMENT 0x0D05
#define GL_UNPACK_ALIGNMENT 0x0CF5
#define GL_RENDERER 0x1F01

/* Each function as Khronos declares it, looked up once. */
#define EGL_CALLS(X) \
    X(EGLDisplay, eglGetPlatformDisplay, (EGLenum, void *, const EGLAttrib *)) \
    X(EGLBoolean, eglInitialize, (EGLDisplay, EGLint *, EGLint *)) \
    X(EGLBoolean, eglBindAPI, (EGLenum)) \
    X(EGLBoolean, eglChooseConfig, (EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *)) \
    X(EGLContext, eglCreateContext, (EGLDisplay, EGLConfig, EGLContext, const EGLint *)) \
    X(EGLBoolean, eglDestroyContext, (EGLDisplay, EGLContext)) \
    X(EGLBoolean, eglMakeCurrent, (EGLDisplay, EGLSurface, EGLSurface, EGLContext)) \
    X(EGLint, eglGetError, (void))
#define GL_CALLS(X) \
    X(GLuint, glCreateShader, (GLenum)) \
    X(void, glShaderSource, (GLuint, GLsizei, const GLchar *const *, const GLint *)) \
    X(void, glCompileShader, (GLuint)) \
    X(void, glGetShaderiv, (GLuint, GLenum, GLint *)) \
    X(void, glGetShaderInfoLog, (GLuint, GLsizei, GLsizei *, GLchar *)) \
    X(void, glDeleteShader, (GLuint)) \
    X(GLuint, glCreateProgram, (void)) \
    X(void, glAttachShader, (GLuint, GLuint)) \
    X(void, glBindAttribLocation, (GLuint, GLuint, const GLchar *)) \
    X(void, glLinkProgram, (GLuint)) \
    X(void, glGetProgramiv, (GLuint, GLenum, GLint *)) \
    X(void, glGetProgramInfoLog, (GLuint, GLsizei, GLsizei *, GLchar *)) \
    X(void, glUseProgram, (GLuint)) \
    X(void, glDeleteProgram, (GLuint)) \
    X(GLint, glGetUniformLocation, (GLuint, const GLchar *)) \
    X(void, glUniform1fv, (GLint, GLsizei, const GLfloat *)) \
    X(void, glUniform2fv, (GLint, GLsizei, const GLfloat *)) \
    X(void, glUniform3fv, (GLint, GLsizei, const GLfloat *)) \
    X(void, glUniform4fv, (GLint, GLsizei, const GLfloat *)) \
    X(void, glUniform1iv, (GLint, GLsizei, const GLint *)) \
    X(void, glUniform2iv, (GLint, GLsizei, const GLint *)) \
    X(void, glUniform3iv, (GLint, GLsizei, const GLint *)) \
    X(void, glUniform4iv, (GLint, GLsizei, const GLint *)) \
    X(void, glGenTextures, (GLsizei, GLuint *)) \
    X(void, glDeleteTextures, (GLsizei, const GLuint *)) \
    X(void, glBindTexture, (GLenum, GLuint)) \
    X(void, glActiveTexture, (GLenum)) \
    X(void, glTexImage2D, (GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, const void *)) \
    X(void, glTexSubImage2D, (GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, const void *)) \
    X(void, glTexParameteri, (GLenum, GLenum, GLint)) \
    X(void, glPixelStorei, (GLenum, GLint)) \
    X(void, glGenFramebuffers, (GLsizei, GLuint *)) \
    X(void, glDeleteFramebuffers, (GLsizei, const GLuint *)) \
    X(void, glBindFramebuffer, (GLenum, GLuint)) \
    X(void, glFramebufferTexture2D, (GLenum, GLenum, GLenum, GLuint, GLint)) \
    X(GLenum, glCheckFramebufferStatus, (GLenum)) \
    X(void, glGenVertexArrays, (GLsizei, GLuint *)) \
    X(void, glDeleteVertexArrays, (GLsizei, const GLuint *)) \
    X(void, glBindVertexArray, (GLuint)) \
    X(void, glGenBuffers, (GLsizei, GLuint *)) \
    X(void, glDeleteBuffers, (GLsizei, const GLuint *)) \
    X(void, glBindBuffer, (GLenum, GLuint)) \
    X(void, glBufferData, (GLenum, GLsizeiptr, const void *, GLenum)) \
    X(void, glVertexAttribPointer, (GLuint, GLint, GLenum, GLboolean, GLsizei, const void *)) \
    X(void, glEnableVertexAttribArray, (GLuint)) \
    X(void, glViewport, (GLint, GLint, GLsizei, GLsizei)) \
    X(void, glDrawArrays, (GLenum, GLint, GLsizei)) \
    X(void, glReadPixels, (GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *)) \
    X(void, glFinish, (void)) \
    X(GLenum, glGetError, (void)) \
    X(const GLubyte *, glGetString, (GLenum))

#define DECLARE(ret, name, args) ret (*name) args;
static struct { EGL_CALLS(DECLARE) GL_CALLS(DECLARE) } gl;
#undef DECLARE

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int wanted_threads = 1;
static char failure[600];
static EGLDisplay display;
static EGLConfig config;
static char renderer[200];
/* Every use of EGL and GL, by any program, one thread at a time: a context is made current,
 * used and released under it, so no two threads ever hold one. Frames are drawn one at a
 * time anyway, llvmpipe spreading each over its own threads. */
static pthread_mutex_t gl_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const missing =
    "a GLSL transition needs Mesa's EGL and its software renderer (Debian's libegl1, libegl-mesa0 and libgl1-mesa-dri; "
    "'segue doctor' lists all a render needs)";

static void load(void) {
    /* Mesa's software renderer on the CPU, llvmpipe, on Segue's threads, unless the user chose. */
    setenv("LIBGL_ALWAYS_SOFTWARE", "1", 0);
    setenv("GALLIUM_DRIVER", "llvmpipe", 0);
    char threads[16];
    snprintf(threads, sizeof threads, "%d", wanted_threads);
    setenv("LP_NUM_THREADS", threads, 0);
    void *library = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "%s: %s", missing, dlerror());
        return;
    }
    void *(*lookup)(const char *) = (void *(*)(const char *))dlsym(library, "eglGetProcAddress");
    if (!lookup) {
        snprintf(failure, sizeof failure, "%s: libEGL.so.1 has no eglGetProcAddress", missing);
        return;
    }
#define LOOK_UP(ret, name, args) \
    if (!(gl.name = (ret (*) args)lookup(#name)) && !(gl.name = (ret (*) args)dlsym(library, #name))) { \
        snprintf(failure, sizeof failure, "%s: EGL gives no %s", missing, #name); \
        return; \
    }
    EGL_CALLS(LOOK_UP)
    GL_CALLS(LOOK_UP)
#undef LOOK_UP
    display = gl.eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, NULL, NULL);
    EGLint major = 0, minor = 0;
    if (!display || !gl.eglInitialize(display, &major, &minor)) {
        snprintf(failure, sizeof failure, "%s: EGL has no surfaceless display (error 0x%x)", missing, gl.eglGetError());
        return;
    }
    if (!gl.eglBindAPI(EGL_OPENGL_API)) {
        snprintf(failure, sizeof failure, "%s: EGL does not offer OpenGL (error 0x%x)", missing, gl.eglGetError());
        return;
    }
    const EGLint wants[] = { EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE };
    EGLint found = 0;
    if (!gl.eglChooseConfig(display, wants, &config, 1, &found) || found < 1) config = NULL;   /* EGL_KHR_no_config_context */
}

int segue_glsl_load(int threads, SegueAVError *err) {
    wanted_threads = threads > 0 ? threads : 1;
    pthread_once(&once, load);
    return failure[0] ? shim_fail_text(err, AVERROR(ENOSYS), failure) : 0;
}

const char *segue_glsl_renderer(void) { return renderer; }

struct SegueGLSL {
    EGLContext context;
    GLuint program, textures[3], framebuffer, array, buffer;
    int width, height;
    float *read;
};

/* The lock taken and the context made current on the calling thread, or a code with err
 * filled (and the lock not held). */
static int begin(SegueGLSL *g, SegueAVError *err) {
    pthread_mutex_lock(&gl_lock);
    if (!gl.eglMakeCurrent(display, NULL, NULL, g->context)) {
        pthread_mutex_unlock(&gl_lock);
        return shim_fail_text(err, AVERROR_EXTERNAL, "eglMakeCurrent: the GLSL transition's context cannot be used on this thread");
    }
    return 0;
}

static void end(void) {
    gl.eglMakeCurrent(display, NULL, NULL, NULL);
    pthread_mutex_unlock(&gl_lock);
}

static const char *const vertex_source =
    "#version 330 core\n"
    "in vec2 segue_position;\n"
    "out vec2 segue_uv;\n"
    "void main() { segue_uv = segue_position * 0.5 + 0.5; gl_Position = vec4(segue_position, 0.0, 1.0); }\n";

/* Before the file: its functions; rows of the pages' textures run from the top. After it: main. */
static const char *const prelude =
    "#version 330 core\n"
    "uniform sampler2D segue_from;\n"
    "uniform sampler2D segue_to;\n"
    "uniform float progress;\n"
    "uniform float ratio;\n"
    "vec4 getFromColor(vec2 uv) { return texture(segue_from, vec2(uv.x, 1.0 - uv.y)); }\n"
    "vec4 getToColor(vec2 uv) { return texture(segue_to, vec2(uv.x, 1.0 - uv.y)); }\n"
    "#line 1\n";
static const char *const postlude =
    "\nin vec2 segue_uv;\n"
    "out vec4 segue_color;\n"
    "void main() { segue_color = transition(segue_uv); }\n";

static GLuint compile(GLenum kind, const char *const *parts, int count, char *log, size_t size) {
    GLuint shader = gl.glCreateShader(kind);
    gl.glShaderSource(shader, count, parts, NULL);
    gl.glCompileShader(shader);
    GLint ok = 0;
    gl.glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        gl.glGetShaderInfoLog(shader, (GLsizei)size, NULL, log);
        gl.glDeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint texture(int width, int height, GLint format, GLenum type, GLint filter) {
    GLuint t = 0;
    gl.glGenTextures(1, &t);
    gl.glBindTexture(GL_TEXTURE_2D, t);
    gl.glTexImage2D(GL_TEXTURE_2D, 0, format, width, height, 0, GL_RGBA, type, NULL);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return t;
}

SegueGLSL *segue_glsl_new(const char *source, int width, int height, int threads, SegueAVError *err) {
    if (segue_glsl_load(threads, err) < 0) return NULL;
    SegueGLSL *g = calloc(1, sizeof *g);
    if (g) g->read = malloc((size_t)width * (size_t)height * 4 * sizeof(float));
    if (!g || !g->read) {
        if (g) free(g);
        shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
        return NULL;
    }
    g->width = width;
    g->height = height;
    const EGLint attributes[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
    pthread_mutex_lock(&gl_lock);
    /* The API a context is made for is the calling thread's own (OpenGL ES by default). */
    gl.eglBindAPI(EGL_OPENGL_API);
    g->context = gl.eglCreateContext(display, config, NULL, attributes);
    pthread_mutex_unlock(&gl_lock);
    if (!g->context) {
        char text[200];
        snprintf(text, sizeof text, "%s: no OpenGL 3.3 context (EGL error 0x%x)", missing, gl.eglGetError());
        shim_fail_text(err, AVERROR(ENOSYS), text);
        segue_glsl_free(g);
        return NULL;
    }
    if (begin(g, err) < 0) { segue_glsl_free(g); return NULL; }
    if (!renderer[0]) snprintf(renderer, sizeof renderer, "%s", (const char *)gl.glGetString(GL_RENDERER));
    char log[700] = "";
    const char *fragment[] = { prelude, source, postlude };
    GLuint vs = compile(GL_VERTEX_SHADER, &vertex_source, 1, log, sizeof log);
    GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fragment, 3, log, sizeof log) : 0;
    if (!fs) {
        if (vs) gl.glDeleteShader(vs);
        shim_fail_text(err, AVERROR(EINVAL), log);
        end();
        segue_glsl_free(g);
        return NULL;
    }
    g->program = gl.glCreateProgram();
    gl.glAttachShader(g->program, vs);
    gl.glAttachShader(g->program, fs);
    gl.glBindAttribLocation(g->program, 0, "segue_position");
    gl.glLinkProgram(g->program);
    gl.glDeleteShader(vs);
    gl.glDeleteShader(fs);
    GLint linked = 0;
    gl.glGetProgramiv(g->program, GL_LINK_STATUS, &linked);
    if (!linked) {
        gl.glGetProgramInfoLog(g->program, sizeof log, NULL, log);
        shim_fail_text(err, AVERROR(EINVAL), log);
        end();
        segue_glsl_free(g);
        return NULL;
    }
    gl.glUseProgram(g->program);
    static const float strip[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
    gl.glGenVertexArrays(1, &g->array);
    gl.glBindVertexArray(g->array);
    gl.glGenBuffers(1, &g->buffer);
    gl.glBindBuffer(GL_ARRAY_BUFFER, g->buffer);
    gl.glBufferData(GL_ARRAY_BUFFER, sizeof strip, strip, GL_STATIC_DRAW);
    gl.glVertexAttribPointer(0, 2, GL_FLOAT, 0, 0, NULL);
    gl.glEnableVertexAttribArray(0);
    gl.glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl.glPixelStorei(GL_PACK_ALIGNMENT, 4);
    for (int i = 0; i < 2; i++) {
        gl.glActiveTexture(GL_TEXTURE0 + (GLenum)i);
        g->textures[i] = texture(width, height, GL_RGBA8, GL_UNSIGNED_BYTE, GL_LINEAR);
    }
    gl.glActiveTexture(GL_TEXTURE0 + 2);
    g->textures[2] = texture(width, height, GL_RGBA32F, GL_FLOAT, GL_NEAREST);
    gl.glGenFramebuffers(1, &g->framebuffer);
    gl.glBindFramebuffer(GL_FRAMEBUFFER, g->framebuffer);
    gl.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g->textures[2], 0);
    GLenum status = gl.glCheckFramebufferStatus(GL_FRAMEBUFFER);
    GLint from = gl.glGetUniformLocation(g->program, "segue_from"), to = gl.glGetUniformLocation(g->program, "segue_to");
    GLint ratio = gl.glGetUniformLocation(g->program, "ratio");
    const GLint units[2] = { 0, 1 };
    const GLfloat aspect = (GLfloat)width / (GLfloat)height;
    if (from >= 0) gl.glUniform1iv(from, 1, &units[0]);
    if (to >= 0) gl.glUniform1iv(to, 1, &units[1]);
    if (ratio >= 0) gl.glUniform1fv(ratio, 1, &aspect);
    gl.glViewport(0, 0, width, height);
    end();
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        shim_fail_text(err, AVERROR_EXTERNAL, "the GLSL transition's frame cannot be drawn into a floating-point texture");
        segue_glsl_free(g);
        return NULL;
    }
    return g;
}

int segue_glsl_set(SegueGLSL *g, const char *name, const float *values, int count, int integer) {
    SegueAVError err;
    if (count < 1 || count > 4 || begin(g, &err) < 0) return -1;
    GLint at = gl.glGetUniformLocation(g->program, name);
    if (at >= 0) {
        gl.glUseProgram(g->program);
        if (integer) {
            GLint v[4];
            for (int i = 0; i < count; i++) v[i] = (GLint)lrintf(values[i]);
            if (count == 1) gl.glUniform1iv(at, 1, v);
            else if (count == 2) gl.glUniform2iv(at, 1, v);
            else if (count == 3) gl.glUniform3iv(at, 1, v);
            else gl.glUniform4iv(at, 1, v);
        } else if (count == 1) gl.glUniform1fv(at, 1, values);
        else if (count == 2) gl.glUniform2fv(at, 1, values);
        else if (count == 3) gl.glUniform3fv(at, 1, values);
        else gl.glUniform4fv(at, 1, values);
    }
    end();
    return at >= 0 ? 0 : 1;
}

/* A channel of the shader's output in 0...255, rounded. */
static inline uint32_t byte(float v) {
    float c = v > 0 ? (v < 1 ? v : 1) : 0;
    return (uint32_t)(c * 255.0f + 0.5f);
}

int segue_glsl_draw(SegueGLSL *g, const uint32_t *from, const uint32_t *to, float progress, uint32_t *out, SegueAVError *err) {
    if (begin(g, err) < 0) return AVERROR_EXTERNAL;
    gl.glUseProgram(g->program);
    GLint at = gl.glGetUniformLocation(g->program, "progress");
    if (at >= 0) gl.glUniform1fv(at, 1, &progress);
    const uint32_t *pages[2] = { from, to };
    for (int i = 0; i < 2; i++) {
        gl.glActiveTexture(GL_TEXTURE0 + (GLenum)i);
        gl.glBindTexture(GL_TEXTURE_2D, g->textures[i]);
        gl.glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->width, g->height, GL_RGBA, GL_UNSIGNED_BYTE, pages[i]);
    }
    gl.glBindFramebuffer(GL_FRAMEBUFFER, g->framebuffer);
    gl.glBindVertexArray(g->array);
    gl.glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    gl.glReadPixels(0, 0, g->width, g->height, GL_RGBA, GL_FLOAT, g->read);
    GLenum problem = gl.glGetError();
    end();
    if (problem) {
        char text[120];
        snprintf(text, sizeof text, "OpenGL error 0x%x while drawing a GLSL transition's frame", problem);
        return shim_fail_text(err, AVERROR_EXTERNAL, text);
    }
    /* The framebuffer's rows run from the bottom. */
    int invalid = 0;
    for (int y = 0; y < g->height; y++) {
        const float *row = g->read + (size_t)(g->height - 1 - y) * (size_t)g->width * 4;
        uint32_t *dst = out + (size_t)y * (size_t)g->width;
        for (int x = 0; x < g->width; x++) {
            const float *p = row + 4 * x;
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !isfinite(p[3])) {
                invalid = 1;
                dst[x] = 0;
                continue;
            }
            uint32_t a = byte(p[3]), r = byte(p[0]), gr = byte(p[1]), b = byte(p[2]);
            r = r < a ? r : a;
            gr = gr < a ? gr : a;
            b = b < a ? b : a;
            dst[x] = r | gr << 8 | b << 16 | a << 24;
        }
    }
    return invalid;
}

void segue_glsl_free(SegueGLSL *g) {
    if (!g) return;
    if (g->context) {
        SegueAVError err;
        if (begin(g, &err) == 0) {
            if (g->program) gl.glDeleteProgram(g->program);
            gl.glDeleteTextures(3, g->textures);
            if (g->framebuffer) gl.glDeleteFramebuffers(1, &g->framebuffer);
            if (g->buffer) gl.glDeleteBuffers(1, &g->buffer);
            if (g->array) gl.glDeleteVertexArrays(1, &g->array);
            end();
        }
        pthread_mutex_lock(&gl_lock);
        gl.eglDestroyContext(display, g->context);
        pthread_mutex_unlock(&gl_lock);
    }
    free(g->read);
    free(g);
}
