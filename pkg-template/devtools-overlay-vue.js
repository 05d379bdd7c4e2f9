// `stepline/devtools-overlay/vue`: <SteplineDevtools />, the overlay as a Vue
// component. The overlay's module loads when the component mounts (a dynamic import);
// render it only in development:
//
//   <SteplineDevtools v-if="dev" final-state="/agents/{session}/state" />
import { defineComponent, h, onMounted, ref, watchEffect } from 'vue';

export const SteplineDevtools = defineComponent({
  name: 'SteplineDevtools',
  props: { sessions: Array, dock: String, open: Boolean, finalState: String },
  setup(props) {
    const el = ref(null);
    onMounted(() => {
      import('./devtools-overlay.js');
    });
    watchEffect(() => {
      if (el.value && props.sessions) el.value.sessions = props.sessions;
    });
    return () => h('stepline-devtools', { ref: el, dock: props.dock, open: props.open ? '' : undefined, 'final-state': props.finalState });
  },
});
