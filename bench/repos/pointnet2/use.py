"""yanx27/Pointnet_Pointnet2_pytorch: train_classification.py (`python train_classification.py --model
pointnet2_cls_ssg --use_cpu`, also pointnet_cls and pointnet2_cls_msg) and train_semseg.py
(`--model pointnet2_sem_seg`) with the network compiled as a user puts it into those scripts
(`classifier = torch.compile(classifier)` right after `classifier = model.get_model(...)`); the model module
is imported the scripts' way (`sys.path.append(os.path.join(ROOT_DIR, 'models'))`,
`model = importlib.import_module(args.model)`).  A training epoch and test() per model, as the scripts write
them (provider.py's augmentations on the numpy batch, `pred, trans_feat = classifier(points)`,
`criterion(pred, target.long(), trans_feat)`), on random point clouds of 128 points (ModelNet / S3DIS files
are not downloaded; the layers' own sizes, npoint=512 etc., are the repository's).
"""
import importlib
import os
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

import provider

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT_DIR = BASE_DIR
sys.path.append(os.path.join(ROOT_DIR, 'models'))

NUM_POINT = 128
BATCH_SIZE = 4


def loader(n, num_point, channels, num_class, per_point=False, shuffle=True):
    points = torch.rand(n, num_point, channels) * 2 - 1
    if per_point:
        target = torch.randint(0, num_class, (n, num_point))
    else:
        target = torch.randint(0, num_class, (n,))
    return DataLoader(TensorDataset(points, target), batch_size=BATCH_SIZE, shuffle=shuffle, drop_last=True)


def test(model, loader, num_class=40):
    # train_classification.py's test() (args.use_cpu)
    mean_correct = []
    class_acc = np.zeros((num_class, 3))
    classifier = model.eval()

    for j, (points, target) in enumerate(loader):
        points = points.transpose(2, 1)
        pred, _ = classifier(points)
        pred_choice = pred.data.max(1)[1]

        for cat in np.unique(target.cpu()):
            classacc = pred_choice[target == cat].eq(target[target == cat].long().data).cpu().sum()
            class_acc[cat, 0] += classacc.item() / float(points[target == cat].size()[0])
            class_acc[cat, 1] += 1

        correct = pred_choice.eq(target.long().data).cpu().sum()
        mean_correct.append(correct.item() / float(points.size()[0]))

    class_acc[:, 2] = class_acc[:, 0] / class_acc[:, 1]
    class_acc = np.mean(class_acc[:, 2])
    instance_acc = np.mean(mean_correct)
    return instance_acc, class_acc


def train_classification(model_name, num_class=10):
    model = importlib.import_module(model_name)
    classifier = model.get_model(num_class, normal_channel=False)
    criterion = model.get_loss()
    classifier = torch.compile(classifier)
    optimizer = torch.optim.Adam(classifier.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-08,
                                 weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)
    trainDataLoader = loader(2 * BATCH_SIZE, NUM_POINT, 3, num_class)
    testDataLoader = loader(BATCH_SIZE, NUM_POINT, 3, num_class, shuffle=False)

    mean_correct = []
    classifier = classifier.train()
    for batch_id, (points, target) in enumerate(trainDataLoader, 0):
        optimizer.zero_grad()

        points = points.data.numpy()
        points = provider.random_point_dropout(points)
        points[:, :, 0:3] = provider.random_scale_point_cloud(points[:, :, 0:3])
        points[:, :, 0:3] = provider.shift_point_cloud(points[:, :, 0:3])
        points = torch.Tensor(points)
        points = points.transpose(2, 1)

        pred, trans_feat = classifier(points)
        loss = criterion(pred, target.long(), trans_feat)
        pred_choice = pred.data.max(1)[1]

        correct = pred_choice.eq(target.long().data).cpu().sum()
        mean_correct.append(correct.item() / float(points.size()[0]))
        loss.backward()
        optimizer.step()
    scheduler.step()

    with torch.no_grad():
        return test(classifier.eval(), testDataLoader, num_class=num_class)


def train_semseg(model_name='pointnet2_sem_seg', num_classes=13):
    MODEL = importlib.import_module(model_name)
    classifier = MODEL.get_model(num_classes)
    criterion = MODEL.get_loss()
    classifier = torch.compile(classifier)
    optimizer = torch.optim.Adam(classifier.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-08,
                                 weight_decay=1e-4)
    weights = torch.ones(num_classes)
    trainDataLoader = loader(BATCH_SIZE, NUM_POINT, 9, num_classes, per_point=True)

    classifier = classifier.train()
    loss_sum = 0
    for i, (points, target) in enumerate(trainDataLoader):
        optimizer.zero_grad()

        points = points.data.numpy()
        points[:, :, :3] = provider.rotate_point_cloud_z(points[:, :, :3])
        points = torch.Tensor(points)
        points, target = points.float(), target.long()
        points = points.transpose(2, 1)

        seg_pred, trans_feat = classifier(points)
        seg_pred = seg_pred.contiguous().view(-1, num_classes)

        target = target.view(-1, 1)[:, 0]
        loss = criterion(seg_pred, target, trans_feat, weights)
        loss.backward()
        optimizer.step()
        loss_sum += loss
    return loss_sum


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    results = [train_classification(name) for name in ('pointnet_cls', 'pointnet2_cls_ssg', 'pointnet2_cls_msg')]
    results.append(train_semseg())
    return results


if __name__ == "__main__":
    main()
