package task

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
)

// Field is one parameter of a spec, found by reflection over its struct
// tags. Every front end binds to these: the CLI makes a flag of each field
// with a Flag name, experiment files set fields by their Param name, and
// both read the default from the spec's Defaults().
//
// Tags on spec struct fields:
//
//	param:"name"   the experiment parameter (and, with _ turned into -, the flag)
//	flag:"name"    the flag name when it differs ("-": no flag)
//	cli:"only"     a flag only: experiment files do not have it
//	uses:"Fact"    applies only to models whose registry entry has Uses.Fact
//	               (model.Uses; see [Applies]), the one rule every layer asks
//	key:"omitdefault"  left out of a run's key at its default
//	key:"keep"     kept in a run's key as given even for a model it does not
//	               apply to (as earlier releases keyed it)
//	help:"..."     the one help text of both
//
// Embedded structs contribute their fields.
type Field struct {
	Param string // the parameter's name (the experiment parameter unless CLIOnly)
	Flag  string // CLI flag ("" if the field has none)
	// CLIOnly: a flag only; experiment files do not have the parameter.
	CLIOnly bool
	// KeyOmitDefault: at its default value the parameter is left out of a
	// run's store key (tag key:"omitdefault"), so that adding it to a kind
	// keeps the keys, and the stored results, of every earlier run.
	KeyOmitDefault bool
	// Uses is the model.Uses fact the parameter needs (tag uses:"…"): it
	// applies only to models that have it ([Applies]); "" applies to all.
	Uses string
	// KeyKeep: the parameter stays in a run's key as given even for a model
	// it does not apply to (tag key:"keep"), as earlier releases keyed it.
	KeyKeep bool
	Help    string
	v       reflect.Value
}

// Fields lists the parameters of the spec that ptr points to, in
// declaration order.
func Fields(ptr any) []Field {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("task.Fields: want a pointer to a spec struct, got %T", ptr))
	}
	var out []Field
	collect(v.Elem(), &out)
	return out
}

func collect(v reflect.Value, out *[]Field) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			collect(v.Field(i), out)
			continue
		}
		param, ok := sf.Tag.Lookup("param")
		if !ok || !sf.IsExported() {
			continue
		}
		f := Field{Param: param, Flag: strings.ReplaceAll(param, "_", "-"), Help: expandHelp(sf.Tag.Get("help")), v: v.Field(i)}
		if fl, ok := sf.Tag.Lookup("flag"); ok {
			f.Flag = fl
		}
		if f.Flag == "-" {
			f.Flag = ""
		}
		f.CLIOnly = sf.Tag.Get("cli") == "only"
		f.KeyOmitDefault = sf.Tag.Get("key") == "omitdefault"
		f.KeyKeep = sf.Tag.Get("key") == "keep"
		f.Uses = sf.Tag.Get("uses")
		*out = append(*out, f)
	}
}

// expandHelp fills the registries' names into a help text: {models},
// {datasets}, {attacks} (global) and {targeted}.
func expandHelp(h string) string {
	if !strings.Contains(h, "{") {
		return h
	}
	reg := attack.Default()
	var global []string
	for _, n := range reg.Names() {
		if s, _ := reg.Lookup(n); !s.Targeted {
			global = append(global, n)
		}
	}
	return strings.NewReplacer("{models}", strings.Join(Models().Names(), ", "),
		"{datasets}", strings.Join(data.Names(), ", "), "{attacks}", strings.Join(global, ", "),
		"{targeted}", strings.Join(reg.TargetedNames(), ", ")).Replace(h)
}

// Type is the field's type as a user sees it: string, bool, int, float,
// floats (a comma-separated list) or "int|default" (an optional int).
func (f Field) Type() string {
	switch f.v.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int:
		return "int"
	case reflect.Float64:
		return "float"
	case reflect.Slice:
		return "floats"
	case reflect.Pointer:
		return "int"
	}
	return f.v.Kind().String()
}

// Optional reports whether the field may be unset (a nil *int: its value
// then follows another field, as the help says).
func (f Field) Optional() bool { return f.v.Kind() == reflect.Pointer }

// Value returns the field's current value: string, bool, int, float64,
// []float64, or *int's int (nil when unset).
func (f Field) Value() any {
	if f.v.Kind() == reflect.Pointer {
		if f.v.IsNil() {
			return nil
		}
		return int(f.v.Elem().Int())
	}
	return f.v.Interface()
}

// String formats the value as a user types it ("" for an unset optional).
func (f Field) String() string { return Format(f.Value()) }

// Format renders a parameter value as a user types it: floats in their
// shortest form, lists comma-separated.
func Format(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case []float64:
		s := make([]string, len(t))
		for i, x := range t {
			s[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strings.Join(s, ",")
	}
	return fmt.Sprint(v)
}

// Set parses s (as typed on a command line) into the field.
func (f Field) Set(s string) error {
	switch f.v.Kind() {
	case reflect.String:
		f.v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		f.v.SetBool(b)
	case reflect.Int, reflect.Pointer:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			// 1e4 is 10000, as in an experiment file; 1.5 is no integer.
			x, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64)
			var ok bool
			if n, ok = asInt(x); ferr != nil || !ok {
				return fmt.Errorf("%q is not an integer", s)
			}
		}
		return f.SetValue(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		f.v.SetFloat(x)
	case reflect.Slice:
		var xs []float64
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			x, err := strconv.ParseFloat(part, 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", part)
			}
			xs = append(xs, x)
		}
		f.v.Set(reflect.ValueOf(xs))
	}
	return nil
}

// SetValue stores a decoded value (from YAML or JSON: string, bool, int,
// float64, or a list of numbers) into the field, converting numbers where
// the conversion is exact.
func (f Field) SetValue(v any) error {
	switch f.v.Kind() {
	case reflect.String:
		switch t := v.(type) {
		case string:
			f.v.SetString(t)
		default:
			f.v.SetString(fmt.Sprint(v))
		}
		return nil
	case reflect.Bool:
		if b, ok := v.(bool); ok {
			f.v.SetBool(b)
			return nil
		}
	case reflect.Int:
		if n, ok := asInt(v); ok {
			f.v.SetInt(int64(n))
			return nil
		}
	case reflect.Pointer:
		if n, ok := asInt(v); ok {
			p := reflect.New(f.v.Type().Elem())
			p.Elem().SetInt(int64(n))
			f.v.Set(p)
			return nil
		}
	case reflect.Float64:
		if x, ok := asFloat(v); ok {
			f.v.SetFloat(x)
			return nil
		}
	case reflect.Slice:
		if x, ok := asFloat(v); ok {
			f.v.Set(reflect.ValueOf([]float64{x}))
			return nil
		}
		if list, ok := v.([]any); ok {
			xs := make([]float64, len(list))
			for i, e := range list {
				x, ok := asFloat(e)
				if !ok {
					return fmt.Errorf("%s in the list is not a number", describe(e))
				}
				xs[i] = x
			}
			f.v.Set(reflect.ValueOf(xs))
			return nil
		}
		if xs, ok := v.([]float64); ok {
			f.v.Set(reflect.ValueOf(append([]float64(nil), xs...)))
			return nil
		}
	}
	return fmt.Errorf("%s is not %s", describe(v), map[string]string{"string": "a string", "bool": "true or false",
		"int": "an integer", "float": "a number", "floats": "a number or a list of numbers"}[f.Type()])
}

// describe names a decoded value in an error.
func describe(v any) string {
	switch t := v.(type) {
	case []any:
		return fmt.Sprintf("the list %v", t)
	case map[string]any:
		return "a mapping"
	case string:
		return fmt.Sprintf("%q", t)
	}
	return fmt.Sprint(v)
}

// ParamValue is the field's value as stored in a run's parameters (the
// store's canonical form): numbers as int or float64, and a list of one
// number as that number, so a one-budget run keeps the key it always had.
func (f Field) ParamValue() any {
	v := f.Value()
	if xs, ok := v.([]float64); ok && len(xs) == 1 {
		return xs[0]
	}
	if xs, ok := v.([]float64); ok {
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = x
		}
		return out
	}
	return v
}

func asInt(v any) (int, bool) {
	switch t := v.(type) {
	case int:
		return t, true
	case int64:
		return int(t), true
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int(t), true
		}
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

// FieldError is a parameter with a bad value.
type FieldError struct {
	Param string // the parameter's name (experiment form; the CLI shows the flag)
	Value any
	Msg   string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Param, Format(e.Value), e.Msg)
}

func bad(param string, v any, format string, args ...any) error {
	return &FieldError{Param: param, Value: v, Msg: fmt.Sprintf(format, args...)}
}
