"""The models of bench/realworld/run_models.py: tiny, randomly initialised, built from a config (no download).

Each entry is a user script's worth of facts: the library (the package `fullgraph check --follow` analyses),
the import line, the expression that builds the model, an input *kind* (the inputs and the call, in ``eval``
and in ``train`` mode) and the modes it runs in.  ``render_script`` turns an entry and a mode into the script a
user writes (``user_scripts.py`` writes them into the git-ignored ``scripts/``): ``SCRIPT`` for a model
(``model.eval()`` + ``torch.no_grad()``, or ``model.train()``), ``METRIC_SCRIPT`` for a torchmetrics metric
object (one mode, ``call``: the compiled metric called as ``metric(preds, target)``, which runs the update
torchmetrics wraps in ``Metric.__init__`` and the batch's compute).
"""
from __future__ import annotations

from dataclasses import dataclass

MODES = ("eval", "train")  # of a model (a torchmetrics metric runs in METRIC_MODES)


@dataclass(frozen=True)
class Model:
    name: str
    library: str  # the package followed (`--follow`), also the import name
    family: str  # decoder / encoder / seq2seq / moe / speech / vision / multimodal / diffusion / ...
    imports: str  # the import line(s) of the user script
    build: str  # expression building the model
    kind: str  # key of KINDS
    note: str = ""
    modes: tuple[str, ...] = MODES  # METRIC_MODES for a torchmetrics metric


# kind: (setup lines, eval call, train call).  eval runs under torch.no_grad() after model.eval();
# train runs after model.train() with gradients on, and passes labels so the loss is computed in forward.
TEXT = ("input_ids = torch.randint(3, 100, (2, 16))\n"
        "attention_mask = torch.ones(2, 16, dtype=torch.long)\n"
        "attention_mask[1, 12:] = 0\n")
KINDS: dict[str, tuple[str, str, str]] = {
    "causal": (TEXT, "input_ids=input_ids, attention_mask=attention_mask",
               "input_ids=input_ids, attention_mask=attention_mask, labels=input_ids"),
    "masked": (TEXT, "input_ids=input_ids, attention_mask=attention_mask",
               "input_ids=input_ids, attention_mask=attention_mask, labels=input_ids"),
    "long": ("input_ids = torch.randint(3, 100, (2, 32))\n"
             "attention_mask = torch.ones(2, 32, dtype=torch.long)\n"
             "attention_mask[1, 28:] = 0\n",
             "input_ids=input_ids, attention_mask=attention_mask",
             "input_ids=input_ids, attention_mask=attention_mask, labels=input_ids"),
    "seq2seq": (TEXT + "decoder_input_ids = torch.randint(3, 100, (2, 8))\n"
                "labels = torch.randint(3, 100, (2, 8))\n",
                "input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids",
                "input_ids=input_ids, attention_mask=attention_mask, labels=labels"),
    "ctc": ("input_values = torch.randn(2, 1600)\n"
            "labels = torch.randint(1, 30, (2, 6))\n",
            "input_values=input_values", "input_values=input_values, labels=labels"),
    "whisper": ("input_features = torch.randn(2, 16, 32)\n"
                "decoder_input_ids = torch.randint(3, 100, (2, 8))\n"
                "labels = torch.randint(3, 100, (2, 8))\n",
                "input_features=input_features, decoder_input_ids=decoder_input_ids",
                "input_features=input_features, labels=labels"),
    "speech2text": ("input_features = torch.randn(2, 32, 16)\n"
                    "attention_mask = torch.ones(2, 32, dtype=torch.long)\n"
                    "decoder_input_ids = torch.randint(3, 100, (2, 8))\n"
                    "labels = torch.randint(3, 100, (2, 8))\n",
                    "input_features=input_features, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids",
                    "input_features=input_features, attention_mask=attention_mask, labels=labels"),
    "image": ("pixel_values = torch.randn(2, 3, 32, 32)\n"
              "labels = torch.tensor([0, 1])\n",
              "pixel_values=pixel_values", "pixel_values=pixel_values, labels=labels"),
    "image_pretrain": ("pixel_values = torch.randn(2, 3, 32, 32)\n",  # the loss is always computed
                       "pixel_values=pixel_values", "pixel_values=pixel_values"),
    "text_image": ("input_ids = torch.randint(3, 100, (2, 8))\n"
                   "attention_mask = torch.ones(2, 8, dtype=torch.long)\n"
                   "attention_mask[1, 6:] = 0\n"
                   "pixel_values = torch.randn(2, 3, 32, 32)\n",
                   "input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask",
                   "input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask, return_loss=True"),
    "text_image_nomask": ("input_ids = torch.randint(3, 100, (2, 8))\n"
                          "pixel_values = torch.randn(2, 3, 32, 32)\n",
                          "input_ids=input_ids, pixel_values=pixel_values",
                          "input_ids=input_ids, pixel_values=pixel_values, return_loss=True"),
    # x-transformers: train wraps the model in AutoregressiveWrapper (the loss is its forward)
    "xt_decoder": ("x = torch.randint(0, 128, (2, 16))\n", "x", "x"),
    "xt_encoder": ("x = torch.randint(0, 128, (2, 16))\n"
                   "mask = torch.ones(2, 16, dtype=torch.bool)\n"
                   "mask[1, 12:] = False\n", "x, mask=mask", "x, mask=mask"),
    "xt_seq2seq": ("src = torch.randint(0, 128, (2, 16))\n"
                   "tgt = torch.randint(0, 128, (2, 9))\n"
                   "src_mask = torch.ones(2, 16, dtype=torch.bool)\n", "src, tgt, mask=src_mask",
                   "src, tgt, mask=src_mask"),
    "xt_image": ("img = torch.randn(2, 3, 32, 32)\n", "img", "img"),
    "xt_continuous": ("x = torch.randn(2, 16, 8)\n"
                      "mask = torch.ones(2, 16, dtype=torch.bool)\n", "x, mask=mask", "x, mask=mask"),
    # diffusers: no loss in forward; train = model.train() with gradients on
    "unet2d": ("sample = torch.randn(2, 3, 16, 16)\n"
               "timestep = torch.tensor([10, 20])\n", "sample, timestep", "sample, timestep"),
    "unet2d_cond": ("sample = torch.randn(2, 4, 16, 16)\n"
                    "timestep = torch.tensor([10, 20])\n"
                    "encoder_hidden_states = torch.randn(2, 8, 32)\n",
                    "sample, timestep, encoder_hidden_states=encoder_hidden_states",
                    "sample, timestep, encoder_hidden_states=encoder_hidden_states"),
    "vae": ("sample = torch.randn(2, 3, 32, 32)\n", "sample", "sample"),
    "dit": ("hidden_states = torch.randn(2, 4, 16, 16)\n"
            "timestep = torch.tensor([10, 20])\n"
            "class_labels = torch.tensor([0, 1])\n",
            "hidden_states, timestep=timestep, class_labels=class_labels",
            "hidden_states, timestep=timestep, class_labels=class_labels"),
    "pixart": ("hidden_states = torch.randn(2, 4, 16, 16)\n"
               "timestep = torch.tensor([10, 20])\n"
               "encoder_hidden_states = torch.randn(2, 8, 32)\n",
               "hidden_states, encoder_hidden_states=encoder_hidden_states, timestep=timestep, "
               "added_cond_kwargs={'resolution': None, 'aspect_ratio': None}",
               "hidden_states, encoder_hidden_states=encoder_hidden_states, timestep=timestep, "
               "added_cond_kwargs={'resolution': None, 'aspect_ratio': None}"),
    "sd3": ("hidden_states = torch.randn(2, 4, 16, 16)\n"
            "encoder_hidden_states = torch.randn(2, 8, 32)\n"
            "pooled_projections = torch.randn(2, 16)\n"
            "timestep = torch.tensor([10, 20])\n",
            "hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, "
            "pooled_projections=pooled_projections, timestep=timestep",
            "hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, "
            "pooled_projections=pooled_projections, timestep=timestep"),
    "flux": ("hidden_states = torch.randn(2, 64, 16)\n"
             "encoder_hidden_states = torch.randn(2, 8, 32)\n"
             "pooled_projections = torch.randn(2, 16)\n"
             "timestep = torch.tensor([0.1, 0.2])\n"
             "img_ids = torch.zeros(64, 3)\n"
             "txt_ids = torch.zeros(8, 3)\n",
             "hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, "
             "pooled_projections=pooled_projections, timestep=timestep, img_ids=img_ids, txt_ids=txt_ids",
             "hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, "
             "pooled_projections=pooled_projections, timestep=timestep, img_ids=img_ids, txt_ids=txt_ids"),
}

MODELS: list[Model] = []


def hf(name: str, family: str, cfg: str, cls: str, kwargs: str, kind: str, note: str = "") -> None:
    MODELS.append(Model(name, "transformers", family, f"from transformers import {cfg}, {cls}",
                        f"{cls}({cfg}({kwargs}))", kind, note))


# ---- transformers: decoders -------------------------------------------------------------------------
L = ("hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, "
     "vocab_size=128, max_position_embeddings=64")
hf("llama", "decoder", "LlamaConfig", "LlamaForCausalLM", L, "causal")
hf("mistral", "decoder", "MistralConfig", "MistralForCausalLM", L, "causal")
hf("qwen2", "decoder", "Qwen2Config", "Qwen2ForCausalLM", L, "causal")
hf("qwen3", "decoder", "Qwen3Config", "Qwen3ForCausalLM", L + ", head_dim=8", "causal")
hf("gemma", "decoder", "GemmaConfig", "GemmaForCausalLM", L + ", head_dim=8", "causal")
hf("gemma2", "decoder", "Gemma2Config", "Gemma2ForCausalLM", L + ", head_dim=8, sliding_window=8", "causal")
hf("gemma3", "decoder", "Gemma3TextConfig", "Gemma3ForCausalLM", L + ", head_dim=8, sliding_window=8", "causal")
hf("phi", "decoder", "PhiConfig", "PhiForCausalLM", L, "causal")
hf("phi3", "decoder", "Phi3Config", "Phi3ForCausalLM", L + ", pad_token_id=0", "causal")
hf("starcoder2", "decoder", "Starcoder2Config", "Starcoder2ForCausalLM", L, "causal")
hf("olmo", "decoder", "OlmoConfig", "OlmoForCausalLM", L, "causal")
hf("cohere", "decoder", "CohereConfig", "CohereForCausalLM", L, "causal")
hf("gpt2", "decoder", "GPT2Config", "GPT2LMHeadModel", "n_embd=32, n_layer=2, n_head=4, n_positions=64, vocab_size=128",
   "causal")
hf("gpt_neox", "decoder", "GPTNeoXConfig", "GPTNeoXForCausalLM",
   "hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, vocab_size=128, "
   "max_position_embeddings=64", "causal")
hf("gptj", "decoder", "GPTJConfig", "GPTJForCausalLM", "n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=64, "
   "vocab_size=128", "causal")
hf("opt", "decoder", "OPTConfig", "OPTForCausalLM",
   "hidden_size=32, ffn_dim=64, num_hidden_layers=2, num_attention_heads=4, word_embed_proj_dim=32, "
   "vocab_size=128, max_position_embeddings=64", "causal")
hf("bloom", "decoder", "BloomConfig", "BloomForCausalLM", "hidden_size=32, n_layer=2, n_head=4, vocab_size=128",
   "causal")
hf("falcon", "decoder", "FalconConfig", "FalconForCausalLM",
   "hidden_size=32, num_hidden_layers=2, num_attention_heads=4, vocab_size=128", "causal")
hf("biogpt", "decoder", "BioGptConfig", "BioGptForCausalLM",
   "hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, vocab_size=128, "
   "max_position_embeddings=64", "causal")
hf("mamba", "decoder", "MambaConfig", "MambaForCausalLM", "hidden_size=32, state_size=8, num_hidden_layers=2, "
   "vocab_size=128", "causal", "state-space model (no attention); the slow path, no CUDA kernels")
hf("recurrent_gemma", "decoder", "RecurrentGemmaConfig", "RecurrentGemmaForCausalLM",
   "hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, "
   "head_dim=8, lru_width=32, attention_window_size=8, vocab_size=128", "causal")
# ---- transformers: mixture of experts --------------------------------------------------------------
hf("mixtral", "moe", "MixtralConfig", "MixtralForCausalLM", L + ", num_local_experts=4, num_experts_per_tok=2", "causal")
hf("qwen2_moe", "moe", "Qwen2MoeConfig", "Qwen2MoeForCausalLM",
   L + ", num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32", "causal")
hf("qwen3_moe", "moe", "Qwen3MoeConfig", "Qwen3MoeForCausalLM",
   L + ", head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32", "causal")
hf("olmoe", "moe", "OlmoeConfig", "OlmoeForCausalLM", L + ", num_experts=4, num_experts_per_tok=2", "causal")
hf("switch_transformers", "moe", "SwitchTransformersConfig", "SwitchTransformersForConditionalGeneration",
   "d_model=32, d_ff=64, d_kv=8, num_layers=2, num_decoder_layers=2, num_heads=4, num_experts=4, "
   "expert_capacity=8, num_sparse_encoder_layers=1, num_sparse_decoder_layers=1, vocab_size=128, "
   "decoder_start_token_id=0", "seq2seq")
# ---- transformers: encoders ------------------------------------------------------------------------
B = ("hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, vocab_size=128, "
     "max_position_embeddings=64")
hf("bert", "encoder", "BertConfig", "BertForMaskedLM", B, "masked")
hf("roberta", "encoder", "RobertaConfig", "RobertaForMaskedLM", B, "masked")
hf("deberta", "encoder", "DebertaConfig", "DebertaForMaskedLM", B, "masked")
hf("deberta_v2", "encoder", "DebertaV2Config", "DebertaV2ForMaskedLM", B, "masked")
hf("electra", "encoder", "ElectraConfig", "ElectraForMaskedLM", B + ", embedding_size=16", "masked")
hf("albert", "encoder", "AlbertConfig", "AlbertForMaskedLM", B + ", embedding_size=16", "masked")
hf("distilbert", "encoder", "DistilBertConfig", "DistilBertForMaskedLM",
   "dim=32, hidden_dim=64, n_layers=2, n_heads=4, vocab_size=128, max_position_embeddings=64", "masked")
hf("mpnet", "encoder", "MPNetConfig", "MPNetForMaskedLM", B, "masked")
hf("convbert", "encoder", "ConvBertConfig", "ConvBertForMaskedLM", B + ", embedding_size=32", "masked")
hf("roformer", "encoder", "RoFormerConfig", "RoFormerForMaskedLM", B + ", embedding_size=32", "masked")
hf("mobilebert", "encoder", "MobileBertConfig", "MobileBertForMaskedLM",
   B + ", embedding_size=16, intra_bottleneck_size=16, true_hidden_size=16", "masked")
hf("funnel", "encoder", "FunnelConfig", "FunnelForMaskedLM",
   "block_sizes=[1, 1], d_model=32, n_head=4, d_head=8, d_inner=64, vocab_size=128", "masked")
hf("modernbert", "encoder", "ModernBertConfig", "ModernBertForMaskedLM", B + ", global_attn_every_n_layers=2, "
   "local_attention=8, pad_token_id=0", "masked")
hf("esm", "encoder", "EsmConfig", "EsmForMaskedLM", B + ", pad_token_id=1, mask_token_id=2", "masked")
hf("longformer", "encoder", "LongformerConfig", "LongformerForMaskedLM", B + ", attention_window=4", "masked")
hf("big_bird", "encoder", "BigBirdConfig", "BigBirdForMaskedLM", B + ", block_size=2, num_random_blocks=2", "long",
   "length 32: block-sparse attention")
# ---- transformers: encoder-decoder -----------------------------------------------------------------
S = ("d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, "
     "encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=128, max_position_embeddings=64, pad_token_id=1, "
     "bos_token_id=0, eos_token_id=2, decoder_start_token_id=2")
T5 = "d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4, vocab_size=128, decoder_start_token_id=0"
hf("t5", "seq2seq", "T5Config", "T5ForConditionalGeneration", T5, "seq2seq")
hf("longt5", "seq2seq", "LongT5Config", "LongT5ForConditionalGeneration", T5 + ", local_radius=4", "seq2seq")
hf("bart", "seq2seq", "BartConfig", "BartForConditionalGeneration", S, "seq2seq")
hf("marian", "seq2seq", "MarianConfig", "MarianMTModel", S, "seq2seq")
hf("pegasus", "seq2seq", "PegasusConfig", "PegasusForConditionalGeneration", S, "seq2seq")
hf("blenderbot", "seq2seq", "BlenderbotConfig", "BlenderbotForConditionalGeneration", S, "seq2seq")
hf("m2m_100", "seq2seq", "M2M100Config", "M2M100ForConditionalGeneration", S, "seq2seq")
hf("led", "seq2seq", "LEDConfig", "LEDForConditionalGeneration",
   S.replace("max_position_embeddings=64", "max_encoder_position_embeddings=64, max_decoder_position_embeddings=64")
   + ", attention_window=4", "seq2seq")
hf("nllb_moe", "moe", "NllbMoeConfig", "NllbMoeForConditionalGeneration",
   S + ", num_experts=4, expert_capacity=8, encoder_sparse_step=2, decoder_sparse_step=2", "seq2seq")
# ---- transformers: speech --------------------------------------------------------------------------
W = ("hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16), "
     "conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, "
     "vocab_size=32")
hf("wav2vec2", "speech", "Wav2Vec2Config", "Wav2Vec2ForCTC", W, "ctc")
hf("hubert", "speech", "HubertConfig", "HubertForCTC", W, "ctc")
hf("wavlm", "speech", "WavLMConfig", "WavLMForCTC", W + ", num_buckets=16, max_bucket_distance=64", "ctc")
hf("data2vec_audio", "speech", "Data2VecAudioConfig", "Data2VecAudioForCTC", W + ", conv_pos_kernel_size=5", "ctc")
hf("sew", "speech", "SEWConfig", "SEWForCTC", W + ", squeeze_factor=2", "ctc")
hf("whisper", "speech", "WhisperConfig", "WhisperForConditionalGeneration",
   "d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, "
   "encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=16, max_target_positions=32, "
   "vocab_size=128, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1, "
   "suppress_tokens=None, begin_suppress_tokens=None", "whisper")
hf("speech_to_text", "speech", "Speech2TextConfig", "Speech2TextForConditionalGeneration",
   "d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, "
   "encoder_ffn_dim=64, decoder_ffn_dim=64, input_feat_per_channel=16, conv_channels=32, max_source_positions=64, "
   "max_target_positions=32, vocab_size=128, pad_token_id=1, bos_token_id=0, eos_token_id=2, "
   "decoder_start_token_id=2", "speech2text")
# ---- transformers: vision --------------------------------------------------------------------------
V = ("hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, image_size=32, patch_size=8, "
     "num_labels=2")
hf("vit", "vision", "ViTConfig", "ViTForImageClassification", V, "image")
hf("deit", "vision", "DeiTConfig", "DeiTForImageClassification", V, "image")
hf("beit", "vision", "BeitConfig", "BeitForImageClassification", V, "image")
hf("dinov2", "vision", "Dinov2Config", "Dinov2ForImageClassification", V, "image")
hf("vit_mae", "vision", "ViTMAEConfig", "ViTMAEForPreTraining",
   "hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, image_size=32, patch_size=8, "
   "decoder_hidden_size=32, decoder_num_hidden_layers=1, decoder_num_attention_heads=4, decoder_intermediate_size=64",
   "image_pretrain")
hf("swin", "vision", "SwinConfig", "SwinForImageClassification",
   "image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4, num_labels=2", "image")
hf("convnext", "vision", "ConvNextConfig", "ConvNextForImageClassification",
   "num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], num_labels=2", "image")
hf("resnet", "vision", "ResNetConfig", "ResNetForImageClassification",
   "embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type='basic', num_labels=2", "image")
hf("mobilenet_v2", "vision", "MobileNetV2Config", "MobileNetV2ForImageClassification",
   "depth_multiplier=0.25, image_size=32, num_labels=2", "image")
hf("levit", "vision", "LevitConfig", "LevitForImageClassification",
   "image_size=32, hidden_sizes=[16, 32, 48], num_attention_heads=[1, 2, 3], depths=[1, 1, 1], key_dim=[8, 8, 8], "
   "num_labels=2", "image")
hf("segformer", "vision", "SegformerConfig", "SegformerForImageClassification",
   "hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1], num_attention_heads=[1, 2, 2, 4], decoder_hidden_size=32, "
   "num_labels=2", "image")
hf("mobilevit", "vision", "MobileViTConfig", "MobileViTForImageClassification",
   "image_size=32, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32], num_labels=2", "image")
hf("pvt", "vision", "PvtConfig", "PvtForImageClassification",
   "image_size=32, hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1], num_attention_heads=[1, 2, 2, 4], "
   "num_labels=2", "image")
hf("focalnet", "vision", "FocalNetConfig", "FocalNetForImageClassification",
   "image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], focal_levels=[2, 2], focal_windows=[3, 3], "
   "num_labels=2", "image")
# ---- transformers: text + image ---------------------------------------------------------------------
TXT = "'hidden_size': 32, 'intermediate_size': 64, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'vocab_size': 128"
VIS = ("'hidden_size': 32, 'intermediate_size': 64, 'num_hidden_layers': 2, 'num_attention_heads': 4, "
       "'image_size': 32, 'patch_size': 8")
hf("clip", "multimodal", "CLIPConfig", "CLIPModel",
   f"text_config={{{TXT}, 'max_position_embeddings': 16}}, vision_config={{{VIS}}}, projection_dim=16", "text_image")
hf("siglip", "multimodal", "SiglipConfig", "SiglipModel",
   f"text_config={{{TXT}, 'max_position_embeddings': 16}}, vision_config={{{VIS}}}", "text_image")
hf("chinese_clip", "multimodal", "ChineseCLIPConfig", "ChineseCLIPModel",
   f"text_config={{{TXT}}}, vision_config={{{VIS}}}, projection_dim=16", "text_image")
hf("altclip", "multimodal", "AltCLIPConfig", "AltCLIPModel",
   f"text_config={{{TXT}, 'project_dim': 16}}, vision_config={{{VIS}}}, projection_dim=16", "text_image")
hf("owlvit", "multimodal", "OwlViTConfig", "OwlViTModel",
   f"text_config={{{TXT}, 'max_position_embeddings': 16}}, vision_config={{{VIS}}}, projection_dim=16", "text_image")

# ---- x-transformers ----------------------------------------------------------------------------------
XT_IMPORT = "from x_transformers import {}"
MODELS += [
    Model("xt_decoder", "x_transformers", "decoder", XT_IMPORT.format("AutoregressiveWrapper, Decoder, TransformerWrapper"),
          "TransformerWrapper(num_tokens=128, max_seq_len=64, attn_layers=Decoder(dim=32, depth=2, heads=4))",
          "xt_decoder", "train: AutoregressiveWrapper(model), whose forward returns the loss"),
    Model("xt_decoder_rotary", "x_transformers", "decoder",
          XT_IMPORT.format("AutoregressiveWrapper, Decoder, TransformerWrapper"),
          "TransformerWrapper(num_tokens=128, max_seq_len=64, attn_layers=Decoder(dim=32, depth=2, heads=4, "
          "rotary_pos_emb=True, attn_flash=True, ff_glu=True, use_rmsnorm=True, attn_kv_heads=2))",
          "xt_decoder", "train: AutoregressiveWrapper(model)"),
    Model("xt_encoder", "x_transformers", "encoder", XT_IMPORT.format("Encoder, TransformerWrapper"),
          "TransformerWrapper(num_tokens=128, max_seq_len=64, attn_layers=Encoder(dim=32, depth=2, heads=4, "
          "rel_pos_bias=True))", "xt_encoder"),
    Model("xt_seq2seq", "x_transformers", "seq2seq", XT_IMPORT.format("XTransformer"),
          "XTransformer(dim=32, enc_num_tokens=128, enc_depth=2, enc_heads=4, enc_max_seq_len=64, dec_num_tokens=128, "
          "dec_depth=2, dec_heads=4, dec_max_seq_len=64)", "xt_seq2seq", "forward returns the loss in both modes"),
    Model("xt_vit", "x_transformers", "vision", XT_IMPORT.format("Encoder, ViTransformerWrapper"),
          "ViTransformerWrapper(image_size=32, patch_size=8, num_classes=2, attn_layers=Encoder(dim=32, depth=2, heads=4))",
          "xt_image"),
    Model("xt_continuous", "x_transformers", "encoder", XT_IMPORT.format("ContinuousTransformerWrapper, Encoder"),
          "ContinuousTransformerWrapper(dim_in=8, dim_out=8, max_seq_len=64, attn_layers=Encoder(dim=32, depth=2, "
          "heads=4))", "xt_continuous"),
]

# ---- diffusers ---------------------------------------------------------------------------------------
DF_IMPORT = "from diffusers import {}"
MODELS += [
    Model("unet2d", "diffusers", "diffusion", DF_IMPORT.format("UNet2DModel"),
          "UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(16, 32), "
          "down_block_types=('DownBlock2D', 'AttnDownBlock2D'), up_block_types=('AttnUpBlock2D', 'UpBlock2D'), "
          "norm_num_groups=8, attention_head_dim=8)", "unet2d"),
    Model("unet2d_condition", "diffusers", "diffusion", DF_IMPORT.format("UNet2DConditionModel"),
          "UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, "
          "block_out_channels=(16, 32), down_block_types=('CrossAttnDownBlock2D', 'DownBlock2D'), "
          "up_block_types=('UpBlock2D', 'CrossAttnUpBlock2D'), cross_attention_dim=32, norm_num_groups=8, "
          "attention_head_dim=8)", "unet2d_cond"),
    Model("autoencoder_kl", "diffusers", "diffusion", DF_IMPORT.format("AutoencoderKL"),
          "AutoencoderKL(in_channels=3, out_channels=3, down_block_types=('DownEncoderBlock2D', 'DownEncoderBlock2D'), "
          "up_block_types=('UpDecoderBlock2D', 'UpDecoderBlock2D'), block_out_channels=(16, 32), latent_channels=4, "
          "norm_num_groups=8, sample_size=32)", "vae"),
    Model("vq_model", "diffusers", "diffusion", DF_IMPORT.format("VQModel"),
          "VQModel(in_channels=3, out_channels=3, down_block_types=('DownEncoderBlock2D', 'DownEncoderBlock2D'), "
          "up_block_types=('UpDecoderBlock2D', 'UpDecoderBlock2D'), block_out_channels=(16, 32), latent_channels=4, "
          "norm_num_groups=8, num_vq_embeddings=32, vq_embed_dim=4, sample_size=32)", "vae"),
    Model("autoencoder_tiny", "diffusers", "diffusion", DF_IMPORT.format("AutoencoderTiny"),
          "AutoencoderTiny(in_channels=3, out_channels=3, encoder_block_out_channels=(16, 16), "
          "decoder_block_out_channels=(16, 16), num_encoder_blocks=(1, 1), num_decoder_blocks=(1, 1), "
          "latent_channels=4)", "vae"),
    Model("dit", "diffusers", "diffusion", DF_IMPORT.format("DiTTransformer2DModel"),
          "DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=16, in_channels=4, out_channels=4, "
          "num_layers=2, sample_size=16, patch_size=4, num_embeds_ada_norm=10, norm_num_groups=8)", "dit"),
    Model("pixart", "diffusers", "diffusion", DF_IMPORT.format("PixArtTransformer2DModel"),
          "PixArtTransformer2DModel(num_attention_heads=2, attention_head_dim=16, in_channels=4, out_channels=4, "
          "num_layers=2, sample_size=16, patch_size=4, cross_attention_dim=32, caption_channels=32, "
          "norm_num_groups=8)", "pixart"),
    Model("sd3", "diffusers", "diffusion", DF_IMPORT.format("SD3Transformer2DModel"),
          "SD3Transformer2DModel(sample_size=16, patch_size=2, in_channels=4, out_channels=4, num_layers=2, "
          "attention_head_dim=8, num_attention_heads=4, joint_attention_dim=32, caption_projection_dim=32, "
          "pooled_projection_dim=16, pos_embed_max_size=16)", "sd3"),
    Model("flux", "diffusers", "diffusion", DF_IMPORT.format("FluxTransformer2DModel"),
          "FluxTransformer2DModel(patch_size=1, in_channels=16, num_layers=1, num_single_layers=1, "
          "attention_head_dim=8, num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=16, "
          "axes_dims_rope=(2, 2, 4))", "flux"),
]

# ---- torch_geometric: graph networks, called as users call them (node features + edge_index) -------------
# eval: model.eval() under torch.no_grad(); train: model.train() with gradients on (dropout active), same call.
GRAPH = ("x = torch.randn(20, 8)\n"
         "edge_index = torch.randint(0, 20, (2, 60))\n")
KINDS.update({
    "graph": (GRAPH, "x, edge_index", "x, edge_index"),
    "graph_batch": (GRAPH + "batch = torch.arange(2).repeat_interleave(10)\n",
                    "x, edge_index, batch=batch", "x, edge_index, batch=batch"),
    "graph_edge_attr": (GRAPH + "edge_attr = torch.randn(60, 4)\n", "x, edge_index, edge_attr",
                        "x, edge_index, edge_attr"),
    "graph_edge_attr_batch": (GRAPH + "edge_attr = torch.randn(60, 4)\n"
                              "batch = torch.arange(2).repeat_interleave(10)\n",
                              "x, edge_index, edge_attr, batch", "x, edge_index, edge_attr, batch"),
    "graph_pool": (GRAPH + "batch = torch.arange(2).repeat_interleave(10)\n",
                   "x, edge_index, batch=batch", "x, edge_index, batch=batch"),
    "graph_edge_type": (GRAPH + "edge_type = torch.randint(0, 3, (60,))\n", "x, edge_index, edge_type",
                        "x, edge_index, edge_type"),
    "graph_pos": (GRAPH + "pos = torch.randn(20, 3)\n", "x, pos, edge_index", "x, pos, edge_index"),
    "graph_hetero": ("x_dict = {'paper': torch.randn(12, 8), 'author': torch.randn(6, 8)}\n"
                     "edge_index_dict = {\n"
                     "    ('author', 'writes', 'paper'): torch.stack([torch.randint(0, 6, (30,)), torch.randint(0, 12, (30,))]),\n"
                     "    ('paper', 'rev_writes', 'author'): torch.stack([torch.randint(0, 12, (30,)), torch.randint(0, 6, (30,))]),\n"
                     "    ('paper', 'cites', 'paper'): torch.randint(0, 12, (2, 40)),\n"
                     "}\n",
                     "x_dict, edge_index_dict", "x_dict, edge_index_dict"),
})
PYG = "torch_geometric"
G = "in_channels=8, hidden_channels=16, num_layers=2, out_channels=4"


def pyg(name: str, family: str, imports: str, build: str, kind: str, note: str = "") -> None:
    MODELS.append(Model(name, PYG, family, imports, build, kind, note))


NM = "from torch_geometric.nn.models import {}"
NN = "from torch_geometric.nn import {}"
pyg("pyg_gcn", "gnn_model", NM.format("GCN"), f"GCN({G}, dropout=0.1)", "graph")
pyg("pyg_gat", "gnn_model", NM.format("GAT"), f"GAT({G}, heads=2, dropout=0.1)", "graph")
pyg("pyg_gatv2", "gnn_model", NM.format("GAT"), f"GAT({G}, v2=True, heads=2, add_self_loops=False)", "graph")
pyg("pyg_graphsage", "gnn_model", NM.format("GraphSAGE"), f"GraphSAGE({G}, jk='cat')", "graph")
pyg("pyg_gin", "gnn_model", NM.format("GIN"), f"GIN({G}, norm='batch_norm')", "graph")
pyg("pyg_edgecnn", "gnn_model", NM.format("EdgeCNN"), f"EdgeCNN({G})", "graph")
pyg("pyg_pna", "gnn_model", NM.format("PNA"),
    f"PNA({G}, aggregators=['mean', 'min', 'max', 'std'], scalers=['identity', 'amplification', 'attenuation'], "
    "deg=torch.tensor([0, 2, 4, 6, 4, 2, 2]))", "graph")
pyg("pyg_graph_unet", "gnn_model", NM.format("GraphUNet"), "GraphUNet(8, 16, 4, depth=2)", "graph",
    "TopK pooling: data-dependent node counts")
pyg("pyg_attentive_fp", "gnn_model", NM.format("AttentiveFP"),
    "AttentiveFP(in_channels=8, hidden_channels=16, out_channels=1, edge_dim=4, num_layers=2, num_timesteps=2)",
    "graph_edge_attr_batch")
pyg("pyg_linkx", "gnn_model", NM.format("LINKX"),
    "LINKX(num_nodes=20, in_channels=8, hidden_channels=16, out_channels=4, num_layers=2)", "graph")
pyg("pyg_transformer_conv", "gnn_conv", NN.format("TransformerConv"), "TransformerConv(8, 8, heads=2, edge_dim=4)",
    "graph_edge_attr")
pyg("pyg_pointnet_conv", "gnn_conv", NN.format("MLP, PointNetConv"),
    "PointNetConv(local_nn=MLP([8 + 3, 16]), global_nn=MLP([16, 16]))", "graph_pos")
pyg("pyg_edge_conv", "gnn_conv", NN.format("EdgeConv, MLP"), "EdgeConv(MLP([16, 16, 16]), aggr='max')", "graph")
pyg("pyg_gine_conv", "gnn_conv", NN.format("GINEConv, MLP"), "GINEConv(MLP([8, 16, 16]), edge_dim=4)",
    "graph_edge_attr")
pyg("pyg_cheb_conv", "gnn_conv", NN.format("ChebConv"), "ChebConv(8, 16, K=3)", "graph")
pyg("pyg_rgcn_conv", "gnn_conv", NN.format("RGCNConv"), "RGCNConv(8, 16, num_relations=3)", "graph_edge_type")
pyg("pyg_gated_graph_conv", "gnn_conv", NN.format("GatedGraphConv"), "GatedGraphConv(16, num_layers=2)", "graph")
pyg("pyg_nn_conv", "gnn_conv", NN.format("NNConv"),
    "NNConv(8, 16, nn=torch.nn.Sequential(torch.nn.Linear(4, 128)), aggr='mean')", "graph_edge_attr")
pyg("pyg_topk_pool", "gnn_pool", NN.format("TopKPooling"), "TopKPooling(8, ratio=0.5)", "graph_pool")
pyg("pyg_hetero_sage", "gnn_hetero", NN.format("HeteroConv, SAGEConv"),
    "HeteroConv({('author', 'writes', 'paper'): SAGEConv((-1, -1), 16), "
    "('paper', 'rev_writes', 'author'): SAGEConv((-1, -1), 16), ('paper', 'cites', 'paper'): SAGEConv(-1, 16)}, "
    "aggr='sum')", "graph_hetero")

# ---- torchmetrics: metric objects, compiled and called as `metric(preds, target)` -----------------------
# One mode (METRIC_MODES): Metric.forward updates the state and computes the batch's value.
METRIC_MODES = ("call",)
KINDS.update({
    "binary": ("preds = torch.rand(16)\n"
               "target = torch.randint(0, 2, (16,))\n", "preds, target", ""),
    "multiclass": ("preds = torch.randn(16, 4).softmax(dim=-1)\n"
                   "target = torch.randint(0, 4, (16,))\n", "preds, target", ""),
    "multilabel": ("preds = torch.rand(16, 3)\n"
                   "target = torch.randint(0, 2, (16, 3))\n", "preds, target", ""),
    "regression": ("preds = torch.randn(16)\n"
                   "target = preds + 0.1 * torch.randn(16)\n", "preds, target", ""),
    "vectors": ("preds = torch.randn(8, 5)\n"
                "target = torch.randn(8, 5)\n", "preds, target", ""),
    "distributions": ("preds = torch.rand(8, 5).softmax(dim=-1)\n"
                      "target = torch.rand(8, 5).softmax(dim=-1)\n", "preds, target", ""),
    "retrieval": ("preds = torch.rand(12)\n"
                  "target = torch.randint(0, 2, (12,)).bool()\n"
                  "indexes = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])\n", "preds, target, indexes=indexes", ""),
    "images": ("preds = torch.rand(2, 3, 16, 16)\n"
               "target = (preds + 0.05 * torch.randn(2, 3, 16, 16)).clamp(0, 1)\n", "preds, target", ""),
    "values": ("value = torch.rand(16)\n", "value", ""),
})
TM = "torchmetrics"


def tm(name: str, family: str, module: str, names: str, build: str, kind: str, note: str = "") -> None:
    MODELS.append(Model(name, TM, family, f"from {module} import {names}", build, kind, note, METRIC_MODES))


TMC, TMR = "torchmetrics.classification", "torchmetrics.regression"
tm("tm_binary_accuracy", "classification", TMC, "BinaryAccuracy", "BinaryAccuracy()", "binary")
tm("tm_multiclass_accuracy", "classification", TMC, "MulticlassAccuracy", "MulticlassAccuracy(num_classes=4)",
   "multiclass")
tm("tm_multiclass_f1", "classification", TMC, "MulticlassF1Score", "MulticlassF1Score(num_classes=4, average='macro')",
   "multiclass")
tm("tm_multiclass_auroc", "classification", TMC, "MulticlassAUROC", "MulticlassAUROC(num_classes=4)", "multiclass",
   "thresholds=None: list states")
tm("tm_binary_auroc_binned", "classification", TMC, "BinaryAUROC", "BinaryAUROC(thresholds=10)", "binary")
tm("tm_multilabel_ap", "classification", TMC, "MultilabelAveragePrecision", "MultilabelAveragePrecision(num_labels=3)",
   "multilabel")
tm("tm_confusion_matrix", "classification", TMC, "MulticlassConfusionMatrix",
   "MulticlassConfusionMatrix(num_classes=4)", "multiclass")
tm("tm_calibration_error", "classification", TMC, "BinaryCalibrationError", "BinaryCalibrationError(n_bins=5)",
   "binary")
tm("tm_mse", "regression", TMR, "MeanSquaredError", "MeanSquaredError()", "regression")
tm("tm_mae", "regression", TMR, "MeanAbsoluteError", "MeanAbsoluteError()", "regression")
tm("tm_r2", "regression", TMR, "R2Score", "R2Score()", "regression")
tm("tm_pearson", "regression", TMR, "PearsonCorrCoef", "PearsonCorrCoef()", "regression")
tm("tm_spearman", "regression", TMR, "SpearmanCorrCoef", "SpearmanCorrCoef()", "regression")
tm("tm_cosine", "regression", TMR, "CosineSimilarity", "CosineSimilarity(reduction='mean')", "vectors")
tm("tm_kl_div", "regression", TMR, "KLDivergence", "KLDivergence()", "distributions")
tm("tm_retrieval_mrr", "retrieval", "torchmetrics.retrieval", "RetrievalMRR", "RetrievalMRR()", "retrieval")
tm("tm_retrieval_ndcg", "retrieval", "torchmetrics.retrieval", "RetrievalNormalizedDCG",
   "RetrievalNormalizedDCG(top_k=3)", "retrieval")
tm("tm_psnr", "image", "torchmetrics.image", "PeakSignalNoiseRatio", "PeakSignalNoiseRatio(data_range=1.0)", "images")
tm("tm_ssim", "image", "torchmetrics.image", "StructuralSimilarityIndexMeasure",
   "StructuralSimilarityIndexMeasure(data_range=1.0)", "images")
tm("tm_mean", "aggregation", "torchmetrics.aggregation", "MeanMetric", "MeanMetric()", "values")
tm("tm_collection", "collection", "torchmetrics", "MetricCollection\n"
   "from torchmetrics.classification import MulticlassAccuracy, MulticlassPrecision, MulticlassRecall",
   "MetricCollection([MulticlassAccuracy(num_classes=4), MulticlassPrecision(num_classes=4), "
   "MulticlassRecall(num_classes=4)])", "multiclass", "compute groups: the three share one state")

# ---- monai: medical imaging networks (2-D, 1 channel, 32x32) ---------------------------------------------
# eval: model.eval() under torch.no_grad(); train: model.train() with gradients on, same call.
IMG = "x = torch.randn(2, 1, 32, 32)\n"
KINDS.update({
    "mri": (IMG, "x", "x"),
    "mri64": ("x = torch.randn(2, 1, 64, 64)\n", "x", "x"),
    "mri_timestep": (IMG + "timesteps = torch.tensor([10, 20])\n", "x, timesteps", "x, timesteps"),
})
MN = "from monai.networks.nets import {}"


def mn(name: str, family: str, cls: str, kwargs: str, kind: str = "mri", note: str = "") -> None:
    MODELS.append(Model(name, "monai", family, MN.format(cls), f"{cls}({kwargs})", kind, note))


SEG = "spatial_dims=2, in_channels=1, out_channels=2"
mn("mn_unet", "segmentation", "UNet", f"{SEG}, channels=(4, 8, 16), strides=(2, 2), num_res_units=1")
mn("mn_basic_unet", "segmentation", "BasicUNet", f"{SEG}, features=(4, 4, 8, 8, 16, 4)")
mn("mn_basic_unetpp", "segmentation", "BasicUNetPlusPlus", f"{SEG}, features=(4, 4, 8, 8, 16, 4), deep_supervision=True")
mn("mn_attention_unet", "segmentation", "AttentionUnet", f"{SEG}, channels=(4, 8, 16), strides=(2, 2)")
mn("mn_segresnet", "segmentation", "SegResNet", f"{SEG}, init_filters=8, blocks_down=(1, 1, 2), blocks_up=(1, 1)")
mn("mn_segresnet_vae", "segmentation", "SegResNetVAE",
   f"input_image_size=(32, 32), {SEG}, init_filters=8, blocks_down=(1, 1, 2), blocks_up=(1, 1)",
   note="forward returns the VAE loss too")
mn("mn_segresnet_ds", "segmentation", "SegResNetDS", f"{SEG}, init_filters=4, blocks_down=(1, 1, 1), dsdepth=2")
mn("mn_dynunet", "segmentation", "DynUNet", f"{SEG}, kernel_size=[3, 3, 3], strides=[1, 2, 2], "
   "upsample_kernel_size=[2, 2], filters=[4, 8, 16], deep_supervision=True, deep_supr_num=1",
   note="deep supervision: train returns the stacked heads")
mn("mn_unetr", "transformer", "UNETR", "in_channels=1, out_channels=2, img_size=(32, 32), feature_size=8, "
   "hidden_size=32, mlp_dim=64, num_heads=4, spatial_dims=2")
mn("mn_swin_unetr", "transformer", "SwinUNETR", "in_channels=1, out_channels=2, feature_size=12, spatial_dims=2, "
   "depths=(1, 1, 1, 1), num_heads=(1, 1, 2, 2), window_size=4", "mri64", "64x64: five halvings")
mn("mn_vit", "transformer", "ViT", "in_channels=1, img_size=(32, 32), patch_size=(8, 8), hidden_size=32, mlp_dim=64, "
   "num_layers=2, num_heads=4, spatial_dims=2, classification=True, num_classes=2")
mn("mn_densenet", "classification", "DenseNet", "spatial_dims=2, in_channels=1, out_channels=2, init_features=8, "
   "growth_rate=4, block_config=(2, 2)")
mn("mn_resnet", "classification", "ResNet", "block='basic', layers=(1, 1, 1, 1), block_inplanes=(8, 16, 32, 64), "
   "spatial_dims=2, n_input_channels=1, num_classes=2")
mn("mn_efficientnet", "classification", "EfficientNetBN", "'efficientnet-b0', pretrained=False, spatial_dims=2, "
   "in_channels=1, num_classes=2")
mn("mn_highresnet", "segmentation", "HighResNet", f"{SEG}")
mn("mn_autoencoder", "autoencoder", "AutoEncoder", "spatial_dims=2, in_channels=1, out_channels=1, channels=(4, 8), "
   "strides=(2, 2)")
mn("mn_varautoencoder", "autoencoder", "VarAutoEncoder", "spatial_dims=2, in_shape=(1, 32, 32), out_channels=1, "
   "latent_size=4, channels=(4, 8), strides=(2, 2)", note="train: reparameterisation samples")
mn("mn_regressor", "classification", "Regressor", "in_shape=(1, 32, 32), out_shape=(2,), channels=(4, 8), "
   "strides=(2, 2)")
mn("mn_diffusion_unet", "diffusion", "DiffusionModelUNet", "spatial_dims=2, in_channels=1, out_channels=1, "
   "channels=(8, 16), attention_levels=(False, True), num_res_blocks=1, num_head_channels=8, norm_num_groups=4",
   "mri_timestep")

BY_NAME = {m.name: m for m in MODELS}
assert len(BY_NAME) == len(MODELS), "duplicate model names"


SCRIPT = '''\
"""{name} ({mode}): generated by bench/realworld/run_models.py."""
import torch
{imports}

torch.manual_seed(0)
model = {build}
{wrap}model.{mode}()
compiled = torch.compile(model, backend="eager")

{setup}{grad_open}{indent}out = compiled({call})
print("OK", type(out).__name__)
'''


METRIC_SCRIPT = '''\
"""{name} ({mode}): generated by bench/realworld/run_models.py."""
import torch
{imports}

torch.manual_seed(0)
metric = {build}
compiled = torch.compile(metric, backend="eager")

{setup}out = compiled({call})
print("OK", type(out).__name__)
'''


def render_script(m: Model, mode: str) -> str:
    setup, eval_call, train_call = KINDS[m.kind]
    if mode not in m.modes:
        raise ValueError(f"{m.name} runs in {', '.join(m.modes)}, not {mode}")
    if m.library == TM:
        return METRIC_SCRIPT.format(name=m.name, mode=mode, imports=m.imports, build=m.build, setup=setup,
                                    call=eval_call)
    wrap = ""
    if m.library == "x_transformers" and mode == "train" and m.kind == "xt_decoder":
        wrap = "model = AutoregressiveWrapper(model)\n"
    imports = m.imports
    if not wrap and "AutoregressiveWrapper, " in imports:
        imports = imports.replace("AutoregressiveWrapper, ", "")
    if mode == "eval":
        grad_open, indent, call = "with torch.no_grad():\n", "    ", eval_call
    else:
        grad_open, indent, call = "", "", train_call
    return SCRIPT.format(name=m.name, mode=mode, imports=imports, build=m.build, wrap=wrap, setup=setup,
                         grad_open=grad_open, indent=indent, call=call)
