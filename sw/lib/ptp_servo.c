// SPDX-License-Identifier: MIT
/* PTP servo: PI controller of a slave clock's frequency from offset samples (beryl.h). */
#include "beryl_priv.h"

void beryl_servo_init(struct beryl_servo *s, double freq_ppb)
{
	s->kp = 0.7;
	s->ki = 0.3;
	s->max_ppb = 5e5;
	s->step_ns = 1e6;
	s->freq_ppb = freq_ppb;
	s->last_t = 0;
	s->first_offset = 0;
	s->state = BERYL_SERVO_UNLOCKED;
}

static double clamp(double v, double m)
{
	return v > m ? m : v < -m ? -m : v;
}

enum beryl_servo_state beryl_servo_sample(struct beryl_servo *s, double offset_ns, double local_ns,
					  double *adj_ppb, double *step_ns)
{
	double dt = local_ns - s->last_t;

	*step_ns = 0;
	switch (s->state) {
	case BERYL_SERVO_UNLOCKED:
		s->first_offset = offset_ns;
		s->last_t = local_ns;
		s->state = BERYL_SERVO_JUMP;    /* next sample: estimate, step */
		*adj_ppb = s->freq_ppb;
		return BERYL_SERVO_UNLOCKED;
	case BERYL_SERVO_JUMP:
		if (dt <= 0) {
			*adj_ppb = s->freq_ppb;
			return BERYL_SERVO_UNLOCKED;
		}
		/* the slave gains (offset slope) ns per ns: run that much slower */
		s->freq_ppb = clamp(s->freq_ppb - (offset_ns - s->first_offset) / dt * 1e9, s->max_ppb);
		*step_ns = -offset_ns;
		*adj_ppb = s->freq_ppb;
		s->last_t = local_ns;
		s->state = BERYL_SERVO_LOCKED;
		return BERYL_SERVO_JUMP;
	case BERYL_SERVO_LOCKED:
	default:
		if (offset_ns > s->step_ns || offset_ns < -s->step_ns) {
			s->state = BERYL_SERVO_UNLOCKED;
			return beryl_servo_sample(s, offset_ns, local_ns, adj_ppb, step_ns);
		}
		if (dt <= 0)
			dt = 1;
		/* offset / dt in ns per s is ppb */
		s->freq_ppb = clamp(s->freq_ppb - s->ki * offset_ns / dt * 1e9, s->max_ppb);
		*adj_ppb = clamp(s->freq_ppb - s->kp * offset_ns / dt * 1e9, s->max_ppb);
		s->last_t = local_ns;
		return BERYL_SERVO_LOCKED;
	}
}
